import type { Readable } from 'node:stream';
import type Docker from 'dockerode';
import { logger } from '../../config/logger.js';
import { delay } from './delay.js';

const debug = logger('sandbox');

/** In-image killer (sandbox-image/bin/mnemara-kill), for when the reaper does not answer (an older image). */
const KILLER = '/opt/mnemara/bin/mnemara-kill';
/** How long (ms) the reaper has to start on the command before the exec'd killer is tried. */
const REAPER_WAIT_MS = 3_000;
/** How long (ms) a kill the reaper has started may take before the exec'd killer is tried as well. */
const REAPER_FINISH_MS = 30_000;
/** How many lines of the container's log to read: the reaper writes two per kill; nothing else writes there. */
const REAPER_LOG_LINES = 200;
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
 * sandbox-image/bin/mnemara-kill), except the processes of the other commands running.
 *
 * A `docker exec` needs a free process slot, which a fork bomb holds, so the kill starts no process: the
 * container's main process, mnemara-reaper, is sent SIGUSR1 and ends every command whose deadline (written by
 * mnemara-exec into its leader's environment) has passed, with bash builtins. The reaper writes "killing due=…"
 * when it starts and "killed due=…" when a scan finds nothing left into the container's log, which the engine
 * serves without a process slot; this returns once the log says this command's kill is complete (up to 30 s once
 * it has started: under load the rounds take seconds, and the command's output can end long before the last
 * round). Until the reaper has started on it, the signal is repeated every 100 ms: the first can find nothing due
 * (a leader still starting has no deadline in its environment yet). When it has not started within 3 s (an image
 * without the reaper, a reaper the agent killed, an engine whose log driver keeps nothing), mnemara-kill is
 * exec'd instead, retried every 20 ms for up to 5 s. `ended` (the command's output stream has ended) lets an old
 * image's path stop early. Never throws; a failure is logged at error level.
 */
export async function killStartedSince(container: Docker.Container, req: KillRequest, ended: Promise<unknown>): Promise<void> {
  let streamEnded = false;
  void ended.then(() => (streamEnded = true));
  try {
    const until = performance.now() + REAPER_WAIT_MS;
    let log: Awaited<ReturnType<typeof reaperLog>> = 'none';
    let quietAfterEnd = 0;
    while ((log === 'none' || log === 'unreadable') && performance.now() < until) {
      // Once the output has ended the leader is gone: a signal now could only find another command due.
      if (!streamEnded) await container.kill({ signal: 'SIGUSR1' });
      await delay(RESIGNAL_MS);
      log = await reaperLog(container, req.token);
      // The output ended and the reaper has not started on this command (three looks, as the engine writes the
      // log a moment after the reaper): the command ended by itself. With no log to read, the output's end decides.
      if (streamEnded && (log === 'unreadable' || (log === 'none' && ++quietAfterEnd >= 3))) return;
    }
    if (log === 'killing') {
      const finish = performance.now() + REAPER_FINISH_MS;
      while (log === 'killing' && performance.now() < finish) {
        await delay(RESIGNAL_MS);
        log = await reaperLog(container, req.token);
      }
    }
    if (log === 'killed') return;
    debug.debug({ token: req.token, log }, 'mnemara-reaper did not end the command; trying mnemara-kill');
  } catch (err) {
    debug.debug({ err }, 'could not signal mnemara-reaper; trying mnemara-kill');
  }
  await execKiller(container, req);
}

/**
 * Where the reaper's kill of `token` stands, from the container's log: `'killed'` (a scan found nothing left),
 * `'killing'` (started, not done), `'none'` (not mentioned yet) or `'unreadable'` (no log from the engine).
 */
async function reaperLog(container: Docker.Container, token: string): Promise<'killed' | 'killing' | 'none' | 'unreadable'> {
  let raw: unknown;
  try {
    raw = await container.logs({ stdout: true, stderr: false, follow: false, tail: REAPER_LOG_LINES });
  } catch {
    return 'unreadable';
  }
  // The frames' 8-byte headers are binary; the lines between them are ASCII.
  const text = Buffer.isBuffer(raw) ? raw.toString('latin1') : String(raw);
  let state: 'killed' | 'killing' | 'none' = 'none';
  for (const m of text.matchAll(/(killing|killed) due=([0-9a-f,]*)/g)) {
    if (m[2]!.split(',').includes(token)) state = m[1] === 'killed' ? 'killed' : 'killing';
  }
  return state;
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
        debug.debug({ attempt, killer: text(chunks) }, 'mnemara-kill done');
        return;
      }
      debug.debug({ exitCode: info.ExitCode, attempt, killer: text(chunks) }, 'mnemara-kill did not finish; retrying');
    } catch (err) {
      debug.debug({ err, attempt }, 'could not start mnemara-kill; retrying');
    }
    await delay(20);
  }
  debug.error({ token: req.token }, 'could not kill the processes of a timed-out command');
}

/** The killer's output, for a debug log: the stream is multiplexed, but its text is readable enough. */
function text(chunks: Buffer[]): string {
  return Buffer.concat(chunks).toString('latin1').replace(/[^\x20-\x7e]/g, '');
}

/** How long (ms) to wait for the reaper to report a reclaim: under a fork bomb its rounds take seconds. */
const RECLAIM_WAIT_MS = 15_000;

/**
 * Asks mnemara-reaper to free the process table (`reclaim_if_full` in sandbox-image/bin/mnemara-kill): when the
 * sandbox's pids cgroup is full or within an eighth of its limit, every process that belongs to no running
 * command is killed (what commands that ended left running; a running command's leader and its tagged processes
 * are spared). Starts no process (a signal, then the container's log). Resolves true once the reaper reported a
 * reclaim that killed, false when it found the table not full or did not answer within 15 s (an image without it).
 * Never throws.
 */
export async function reclaimProcessSlots(container: Docker.Container): Promise<boolean> {
  const asked = Date.now();
  try {
    await container.kill({ signal: 'SIGUSR1' });
    const until = performance.now() + RECLAIM_WAIT_MS;
    while (performance.now() < until) {
      await delay(RESIGNAL_MS);
      const raw: unknown = await container.logs({ stdout: true, stderr: false, follow: false, timestamps: true, since: Math.floor(asked / 1000) - 1 });
      const text = Buffer.isBuffer(raw) ? raw.toString('latin1') : String(raw);
      // Lines are "<RFC 3339 time> reclaimed[ none]"; the engine's clock is this machine's (or close to it).
      for (const m of text.matchAll(/(\d{4}-\d\d-\d\dT[\d:.]+Z) reclaimed( none)?/g)) {
        if (Date.parse(m[1]!) >= asked - 1_000) return m[2] === undefined;
      }
    }
  } catch (err) {
    debug.debug({ err }, 'could not ask mnemara-reaper to reclaim process slots');
  }
  return false;
}
