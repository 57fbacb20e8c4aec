import type Docker from 'dockerode';
import { hostname } from 'node:os';
import { VERSION } from '../../config/version.js';
import { HOME_LABEL, homeLabels } from './home-label.js';

/**
 * Labels every mnemara container and volume carries; `sandbox prune` finds leftovers by `mnemara=1` and keeps
 * to its own home by `mnemara.home` (`home-label.ts`).
 */
export const LABEL = {
  owner: 'mnemara',
  session: 'mnemara.session',
  version: 'mnemara.version',
  /** `<hostname>:<pid>` of the process that started the sandbox; prune leaves sandboxes of live processes alone. */
  process: 'mnemara.process',
  /** A hash of the resolved mnemara home that made it (`home-label.ts`); `mnemara.home.path` holds the path. */
  home: HOME_LABEL.hash,
  homePath: HOME_LABEL.path,
} as const;

/** The value of the `mnemara.process` label for this process. */
export function processLabel(): string {
  return `${hostname()}:${process.pid}`;
}

/** Where the workspace volume is mounted, and the sandbox user's home (a tmpfs: the root filesystem is read-only). */
export const WORKSPACE_DIR = '/workspace';
export const HOME_DIR = '/home/agent';

/** The limits and choices a container is created with; sizes in bytes. */
export interface ContainerSpec {
  image: string;
  sessionId: string;
  name: string;
  network: string;
  memoryBytes: number;
  cpus: number;
  pidsLimit: number;
  tmpBytes: number;
  /** The loop device holding the workspace's filesystem (its size is the quota); none: a plain volume. */
  workspaceDevice?: string;
  uid: number;
  gid: number;
  /** The mnemara home the sandbox belongs to (its labels); default `mnemaraHome()`. */
  home?: string;
}

/**
 * The Docker create options of a hardened sandbox (issue 2, DESIGN.md step 2): network `none` unless asked,
 * every capability dropped, no-new-privileges, memory (no swap beyond it), CPU and process limits, a read-only
 * root filesystem with an anonymous volume at /workspace (the archive API can write there, unlike a tmpfs) and
 * tmpfs /tmp and home, the non-root user, and mnemara's labels on container and volume.
 */
export function containerCreateOptions(spec: ContainerSpec): Docker.ContainerCreateOptions {
  const labels = {
    [LABEL.owner]: '1',
    [LABEL.session]: spec.sessionId,
    [LABEL.version]: VERSION,
    [LABEL.process]: processLabel(),
    ...homeLabels(spec.home),
  };
  const tmpfs = `rw,nosuid,nodev,size=${spec.tmpBytes}`;
  return {
    name: spec.name,
    Image: spec.image,
    User: `${spec.uid}:${spec.gid}`,
    WorkingDir: WORKSPACE_DIR,
    Env: [`HOME=${HOME_DIR}`, `MNEMARA_WORKSPACE=${WORKSPACE_DIR}`],
    Labels: labels,
    NetworkDisabled: spec.network === 'none',
    HostConfig: {
      NetworkMode: spec.network,
      CapDrop: ['ALL'],
      SecurityOpt: ['no-new-privileges'],
      Memory: spec.memoryBytes,
      MemorySwap: spec.memoryBytes,
      NanoCpus: Math.round(spec.cpus * 1e9),
      PidsLimit: spec.pidsLimit,
      ReadonlyRootfs: true,
      Tmpfs: {
        '/tmp': `${tmpfs},mode=1777`,
        [HOME_DIR]: `${tmpfs},uid=${spec.uid},gid=${spec.gid},mode=0755`,
      },
      Mounts: [{ Type: 'volume', Source: '', Target: WORKSPACE_DIR, VolumeOptions: { NoCopy: false, Labels: labels, DriverConfig: { Name: 'local', Options: volumeOptions(spec.workspaceDevice) } } }],
      AutoRemove: false,
      Init: false,
    },
  };
}

/** The local volume driver's options: mount the loop device's ext4 when there is a quota. */
function volumeOptions(device: string | undefined): Record<string, string> {
  return device ? { type: 'ext4', device, o: 'nosuid,nodev' } : {};
}
