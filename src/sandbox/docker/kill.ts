import type { Readable } from 'node:stream';
import type Docker from 'dockerode';
import { logger } from '../../config/logger.js';
import { delay } from './delay.js';

const log = logger('sandbox');

/** In-image killer (sandbox-image/bin/mnemara-kill), for when the reaper does not answer (an older image). */
const KILLER = '/opt/mnemara/bin/mnemara-kill';
/** How long (ms) the reaper has to end the command before the exec'd killer is tried. */
const REAPER_WAIT_MS = 3_000;
/**
 * How often (ms) the reaper is signalled again until the command has ended. The first signal can find nothing
 * due: a leader still starting (mnemara-exec has not exec'd the command yet) shows no deadline in its
 * environment, and on a loaded machine that takes a second or more; waiting for the exec'd fallback then cost
 * seconds while a fork bomb filled the process table.
 */
const RESIGNAL_MS = 100;
/** How long (ms) to keep trying to start the exec'd killer when a fork bomb holds every process slot. */
const KILL_RETRY_MS = 5_000;

/** What the killer needs to know about the command it ends. */
export interface KillRequest {
  /** The command's MNEMARA_EXEC_TOKEN. */
  token: string;
  /** Tokens of the sandbox's other commands still running: their tagged processes are left alone. */
  spare: string[];
}

/**
 * SIGKILLs every process in the container that started since the command began (the rule is in
 * sandbox-image/bin/mnemara-kill), except the tagged processes of the other running commands.
 *
 * A `docker exec` needs a free process slot, which a fork bomb holds, so the kill starts no process: the
 * container's main process, mnemara-reaper, is sent SIGUSR1 and ends every command whose deadline (written by
 * mnemara-exec into its leader's environment) has passed, with bash builtins; the signal is repeated every 100 ms
 * until `ended` resolves, once the command's output stream has ended (the caller's). When that does not happen within 3 s (an image without the reaper, or
 * a reaper the agent killed), mnemara-kill is exec'd, retried every 20 ms for up to 5 s. Never throws; a failure
 * is logged at error level.
 */
export async function killStartedSince(container: Docker.Container, req: KillRequest, ended: Promise<unknown>): Promise<void> {
  try {
    let done = false;
    void ended.then(() => (done = true));
    const until = performance.now() + REAPER_WAIT_MS;
    while (!done && performance.now() < until) {
      await container.kill({ signal: 'SIGUSR1' });
      await Promise.race([ended, delay(RESIGNAL_MS)]);
    }
    if (done) return;
    log.debug({ token: req.token }, 'mnemara-reaper did not end the command; trying mnemara-kill');
  } catch (err) {
    log.debug({ err }, 'could not signal mnemara-reaper; trying mnemara-kill');
  }
  await execKiller(container, req);
}

async function execKiller(container: Docker.Container, req: KillRequest): Promise<void> {
  const until = performance.now() + KILL_RETRY_MS;
  for (let attempt = 0; performance.now() < until; attempt++) {
    try {
      const exec = await container.exec({ Cmd: [KILLER, req.token, ...req.spare], AttachStdout: true, AttachStderr: true });
      const stream = (await exec.start({ hijack: false, Tty: false })) as Readable;
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      await new Promise<void>((resolve) => {
        stream.once('end', resolve);
        stream.once('close', resolve);
        stream.once('error', () => resolve());
      });
      const info = await exec.inspect();
      if (info.ExitCode === 0 || info.ExitCode === 3) {
        log.debug({ attempt, killer: text(chunks) }, 'mnemara-kill done');
        return;
      }
      log.debug({ exitCode: info.ExitCode, attempt, killer: text(chunks) }, 'mnemara-kill did not finish; retrying');
    } catch (err) {
      log.debug({ err, attempt }, 'could not start mnemara-kill; retrying');
    }
    await delay(20);
  }
  log.error({ token: req.token }, 'could not kill the processes of a timed-out command');
}

/** The killer's output, for a debug log: the stream is multiplexed, but its text is readable enough. */
function text(chunks: Buffer[]): string {
  return Buffer.concat(chunks).toString('latin1').replace(/[^\x20-\x7e]/g, '');
}
