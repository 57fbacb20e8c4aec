import type Docker from 'dockerode';
import { SANDBOX_IMAGE_REPO, sandboxImageTag } from '../image-tag.js';
import { dockerClient } from './client.js';

/** Whether the sandbox image this checkout needs is built, and which older mnemara-sandbox tags exist. */
export interface SandboxImageStatus {
  /** The tag this checkout's Dockerfile.sandbox + sandbox-image/ hash to. */
  tag: string;
  present: boolean;
  /** Created time of the current image (ISO 8601), when present. */
  created?: string;
  /** Size in bytes, when present. */
  sizeBytes?: number;
  /** Other `mnemara-sandbox:*` tags (older builds; `latest` excluded). */
  staleTags: string[];
}

/** Looks the sandbox image up in the engine. Throws what dockerode throws when the engine does not answer. */
export async function sandboxImageStatus(docker: Docker = dockerClient()): Promise<SandboxImageStatus> {
  const tag = await sandboxImageTag();
  const images = await docker.listImages({ filters: { reference: [SANDBOX_IMAGE_REPO] } });
  const tags = images.flatMap((i) => i.RepoTags ?? []);
  const current = images.find((i) => (i.RepoTags ?? []).includes(tag));
  return {
    tag,
    present: current !== undefined,
    ...(current ? { created: new Date(current.Created * 1000).toISOString(), sizeBytes: current.Size } : {}),
    staleTags: tags.filter((t) => t !== tag && t !== `${SANDBOX_IMAGE_REPO}:latest`).sort(),
  };
}
