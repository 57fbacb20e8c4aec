import { ioFailureCode, ioFailureError, type SavedWork } from '../config/io-errors.js';
import { MnemaraError } from '../config/errors.js';
import { DockerSandbox } from '../sandbox/docker/docker-sandbox.js';
import type { Sandbox } from '../sandbox/types.js';

/**
 * Whether the sandbox's container still exists (`true` for a local sandbox, and when the engine cannot be asked:
 * only a 404 says it is gone). Another process (`mnemara sandbox prune --force`, a person's `docker rm`) may have
 * removed it while the session ran.
 */
export async function sandboxStillThere(sandbox: Sandbox): Promise<boolean> {
  if (!(sandbox instanceof DockerSandbox)) return true;
  return sandbox.exists();
}

/**
 * The error of a workspace snapshot that failed. When the container is still there it is kept with the work, and
 * the hint says how to get it out (`mnemara recover`, `docker cp`); when it is gone (removed by someone else) the
 * hint says so and names what was saved: the transcript, which `mnemara recover` brings into the lineage's memory.
 * A full disk is said as such (`ioFailureError`). Returns `{ error, kept }`: `kept` tells the caller to keep the
 * container for rescue. `where`: the home, and the store when it is elsewhere (named by a full disk's hint). Never throws.
 */
export async function snapshotFailed(err: unknown, sandbox: Sandbox, transcriptPath: string, where: Pick<SavedWork, 'home' | 'store'>): Promise<{ error: MnemaraError; kept: boolean }> {
  const id = sandbox.id.slice(0, 12);
  const there = await sandboxStillThere(sandbox);
  const rescue =
    sandbox.kind !== 'docker'
      ? ''
      : there
        ? `The sandbox ${id} is kept with the work in /workspace: \`mnemara recover${where.store ? ` --store ${where.store}` : ''}\` saves it as a branch and removes the sandbox (or copy it out with \`docker cp ${id}:/workspace DIR\`). `
        : `The sandbox ${id} was removed by someone else during the run (e.g. \`mnemara sandbox prune --force\`), so the files the agent changed are lost; what was saved is the transcript. `;
  const kept = sandbox.kind === 'docker' && there;
  if (ioFailureCode(err)) {
    const e = ioFailureError(err, 'snapshotting the workspace', { ...where, transcriptPath });
    // What the snapshot itself said (a damaged workspace filesystem names the path that failed) stays in view.
    const said = err instanceof MnemaraError && err.code === 'IO_FAILED' ? ` (${err.message})` : '';
    return { error: new MnemaraError(e.code, `${e.message}${said}`, { hint: `${rescue}${e.hint}`, cause: err }), kept };
  }
  const message = there ? `could not snapshot the workspace: ${(err as Error).message}` : `could not snapshot the workspace: the sandbox ${id} is gone (${(err as Error).message})`;
  return {
    error: new MnemaraError('SNAPSHOT_FAILED', message, {
      hint: `${rescue}The transcript is at ${transcriptPath}; \`mnemara recover\` brings it into the lineage's memory.`,
      cause: err,
    }),
    kept,
  };
}
