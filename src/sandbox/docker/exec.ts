import { randomBytes } from 'node:crypto';
import { Writable, type Readable } from 'node:stream';
import type Docker from 'dockerode';
import { logger } from '../../config/logger.js';
import { CappedOutput } from '../output-cap.js';
import { SandboxError } from '../errors.js';
import { delay } from './delay.js';
import { killStartedSince, reclaimProcessSlots } from './kill.js';
import { nearlyFull, pidsUsage, watchPids, type PidsUsage } from './pids.js';
import { exitCodeOf, waitForExit, watchForExit } from './wait.js';

const log = logger('sandbox');

/** In-image exec wrapper (sandbox-image/bin/mnemara-exec) that tags a command's process tree with a token. */
const EXEC_WRAPPER = '/opt/mnemara/bin/mnemara-exec';
/** After a kill, how long (ms) to wait for the stream to end before dropping it. */
const STREAM_GRACE_MS = 5_000;

/** Tokens of the commands running in each container: a timeout kill spares their tagged processes. */
const running = new WeakMap<Docker.Container, Set<string>>();

/** One raw exec: argv, and where its stdin comes from. */
export interface RawExecRequest {
  argv: string[];
  cwd?: string;
  env?: Record<string, string>;
  stdin?: string | Buffer | Readable;
  /** ms; no timeout when undefined. */
  timeoutMs?: number;
  /** bytes kept per stream. */
  maxOutputBytes: number;
  /** Aborting ends the command as the deadline does (see `ExecOptions.signal`). */
  signal?: AbortSignal;
}

/** What a raw exec did: the collectors keep the bytes, so callers choose between text and raw. */
export interface RawExecResult {
  exitCode: number | null;
  stdout: CappedOutput;
  stderr: CappedOutput;
  timedOut: boolean;
  /** `signal` was aborted while the command ran, and it was killed. */
  interrupted?: boolean;
  durationMs: number;
  /** The stdin source failed (e.g. a restore stream broke); the command saw its input end early. */
  stdinError?: Error;
}

/**
 * Runs argv in the container under `mnemara-exec` (a new process group tagged with a random token), with stdout
 * and stderr demultiplexed into head+tail collectors. Returns once the stream has ended — Docker ends it at most
 * 2 s after the process exits even when a background child holds stdout — and exec inspect says the process has
 * ended (a process that closed its output early is waited for); the exit code is inspect's, `null` only when
 * Docker has none.
 *
 * The deadline (`timeoutMs`) counts from the moment the engine has started the process, not from the request, so
 * a busy engine's latency is not charged to the command. When it passes, exec inspect decides: a command that has
 * ended (its leader exited, even if a background child still holds its output) is not timed out and nothing is
 * killed; one still running is ended by a second exec, `mnemara-kill`, which SIGKILLs every process that started
 * since the command began — children that left the process group or session, or cleared their environment,
 * included — except the tagged processes of other commands running at the same time (docs/sandbox.md, "Timeouts").
 * The sandbox's process table is kept usable for the command (docs/sandbox.md, "Timeouts"): before it starts, when
 * the container's pids cgroup (read on the host, `pidsUsage`) is full or nearly so, the reaper first kills the
 * processes no running command owns (`reclaimProcessSlots`), and so it does when the table fills while the
 * command runs (`watchPids`, every 200 ms: the shell's fork retries then succeed); when the engine cannot start the command for want
 * of a slot, the same reclaim runs and the command is tried once more; when a started command failed with a fork
 * failure ("Resource temporarily unavailable"; bash exits 254), the reclaim runs so that the next command has room (the
 * command is not run again: it may have done part of its work).
 * Throws `SandboxError('SANDBOX_FAILED')` only when the engine refuses the exec itself.
 */
export async function rawExec(container: Docker.Container, docker: Docker, req: RawExecRequest): Promise<RawExecResult> {
  // A fork bomb that a command which ended at once left running holds (nearly) every slot: the exec would start,
  // but its shell could not fork (bash retries for ~26 s, then exits 254). Free the slots before the command runs.
  const before = await pidsUsage(container.id);
  if (before && nearlyFull(before)) await reclaim(container, before);
  // A bomb started just before this command fills the table while it runs: reclaim then, and the shell's fork
  // retries succeed.
  const stopWatch = watchPids(container.id, (u) => reclaim(container, u));
  const first = await execOnce(container, docker, req).finally(stopWatch);
  // The engine could not start the command for want of a process slot (a fork bomb, or processes left by a command
  // that ended, hold them all): the reaper frees the slots of processes no running command owns, then one retry.
  // A stdin stream cannot be replayed: such a command is not retried.
  if (couldNotStart(first)) {
    if (req.stdin !== undefined && typeof req.stdin !== 'string' && !Buffer.isBuffer(req.stdin)) return first;
    if (!(await reclaim(container))) return first;
    return execOnce(container, docker, req);
  }
  // The table filled while the command ran (a bomb started just before it): free it for the next command. With no
  // host reading, the reaper's own check decides (a signal and a look at the log, only after such a failure).
  if (couldNotFork(first)) {
    const after = await pidsUsage(container.id);
    if (!after || nearlyFull(after)) await reclaim(container, after ?? undefined);
  }
  return first;
}

/** When each sandbox was last warned about a full process table (ms): one warning a minute, not one a reclaim. */
const warnedAt = new Map<string, number>();
const WARN_EVERY_MS = 60_000;

/**
 * Has the reaper free the process table; true when it killed something. Said once a minute per sandbox at warn
 * level (a fork storm of one command printed the same warning 13 times, trial 23 F6), the rest at debug.
 */
async function reclaim(container: Docker.Container, usage?: PidsUsage): Promise<boolean> {
  const killed = await reclaimProcessSlots(container);
  if (killed) {
    const last = warnedAt.get(container.id) ?? 0;
    const loud = Date.now() - last >= WARN_EVERY_MS;
    if (loud) warnedAt.set(container.id, Date.now());
    (loud ? log.warn : log.debug).call(log, { pids: usage }, 'the sandbox\'s process table was full: processes left by commands that ended were killed');
  }
  return killed;
}

/**
 * A started command failed and said a fork failed (EAGAIN: bash's "fork: Resource temporarily unavailable" and
 * exit 254, or a program's own message with its own exit code).
 */
function couldNotFork(r: RawExecResult): boolean {
  return r.exitCode !== 0 && /Resource temporarily unavailable/.test(r.stderr.text() + r.stdout.text());
}

/** runc's own failure to start an exec'd process (exit 126 with its message on the output), not the command's. */
function couldNotStart(r: RawExecResult): boolean {
  return r.exitCode === 126 && /OCI runtime exec failed/.test(r.stdout.text() + r.stderr.text());
}

async function execOnce(container: Docker.Container, docker: Docker, req: RawExecRequest): Promise<RawExecResult> {
  const started = performance.now();
  const token = randomBytes(8).toString('hex');
  const hasStdin = req.stdin !== undefined;
  const exec = await container
    .exec({
      Cmd: [EXEC_WRAPPER, token, String(req.timeoutMs ?? 0), ...req.argv],
      AttachStdout: true,
      AttachStderr: true,
      AttachStdin: hasStdin,
      Tty: false,
      ...(req.cwd ? { WorkingDir: req.cwd } : {}),
      // The token is in the leader's environment from its first instant (mnemara-exec exports it again for the
      // command): a kill running while this exec starts tells it apart from the survivors it is hunting.
      Env: [...Object.entries(req.env ?? {}).map(([k, v]) => `${k}=${v}`), `MNEMARA_EXEC_TOKEN=${token}`],
    })
    .catch((err: unknown) => {
      throw refused(err);
    });
  const live = running.get(container) ?? new Set<string>();
  running.set(container, live);
  live.add(token);
  try {
    return await runStarted(container, docker, exec, req, token, started, live);
  } finally {
    live.delete(token);
  }
}

async function runStarted(
  container: Docker.Container,
  docker: Docker,
  exec: Docker.Exec,
  req: RawExecRequest,
  token: string,
  started: number,
  live: Set<string>,
): Promise<RawExecResult> {
  const hasStdin = req.stdin !== undefined;
  const stream = (await exec.start({ hijack: hasStdin, stdin: hasStdin, Tty: false }).catch((err: unknown) => {
    throw refused(err);
  })) as NodeJS.ReadWriteStream & Readable;

  const stdout = new CappedOutput(req.maxOutputBytes);
  const stderr = new CappedOutput(req.maxOutputBytes);
  const ended = new Promise<void>((resolve) => {
    stream.once('end', resolve);
    stream.once('close', resolve);
    stream.once('error', (err) => {
      log.debug({ err }, 'exec stream error');
      resolve();
    });
  });
  docker.modem.demuxStream(stream, sink(stdout), sink(stderr));
  let stdinError: Error | undefined;
  if (hasStdin) {
    feedStdin(stream, req.stdin!, (err) => {
      stdinError = err;
    });
  }

  const watcher = watchForExit(exec, stream);
  let timer: NodeJS.Timeout | undefined;
  let interrupted = false;
  let stopNow: ((v: 'timeout') => void) | undefined;
  const onAbort = (): void => {
    interrupted = true;
    stopNow?.('timeout');
  };
  // The run's signal is a deadline that came early: the same kill, reported as an interrupt.
  const deadline = new Promise<'timeout'>((resolve) => {
    stopNow = resolve;
    if (req.timeoutMs !== undefined) timer = setTimeout(() => resolve('timeout'), req.timeoutMs);
  });
  if (req.signal?.aborted) onAbort();
  else req.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    // The stream ends when the process and every holder of its output are done (or Docker gives up on them);
    // a process that closed its output early is still running, so wait for its end as well.
    const first = await Promise.race([ended.then(() => 'ended' as const), deadline]);
    let exited = first === 'ended' ? await waitForExit(exec, deadline) : first;
    // The deadline passed: only a command still running has timed out. One that ended in time but left a child
    // holding its output (Docker keeps the stream open ~2 s for it) has not; its children are left, as they
    // would be under a longer timeout.
    if (exited === 'timeout') exited = await endedCode(exec);
    if (exited !== 'timeout') {
      return { exitCode: exited, stdout, stderr, timedOut: false, durationMs: performance.now() - started, stdinError };
    }
    const spare = [...live].filter((t) => t !== token);
    await killStartedSince(container, { token, spare }, ended);
    const gone = await Promise.race([ended.then(() => true), delay(STREAM_GRACE_MS).then(() => false)]);
    if (!gone) stream.destroy();
    const exitCode = await exitCodeOf(exec);
    // The killer spares a command whose leader had already exited (Docker reports an exit late while a child
    // holds the output): that command ended in time, with its own exit code. SIGKILL's 137 means the kill.
    const killed = exitCode === 137 || exitCode === null;
    return {
      exitCode,
      stdout,
      stderr,
      timedOut: killed && !interrupted,
      ...(killed && interrupted ? { interrupted: true } : {}),
      durationMs: performance.now() - started,
      stdinError,
    };
  } finally {
    clearTimeout(timer);
    clearInterval(watcher);
    req.signal?.removeEventListener('abort', onAbort);
  }
}

/** The engine would not run the exec: most often the container is gone (pruned) or stopped (its init died). */
function refused(err: unknown): SandboxError {
  const status = (err as { statusCode?: number }).statusCode;
  const gone = status === 404 || status === 409;
  return new SandboxError(
    'SANDBOX_FAILED',
    `${gone ? 'the sandbox container is gone or stopped' : 'the engine refused the exec'}: ${(err as Error).message}`,
    { hint: gone ? 'start a new sandbox (was it pruned with --force?)' : undefined, cause: err },
  );
}

/** The exit code when exec inspect says the process has ended, else `'timeout'` (it runs on, or inspect failed). */
async function endedCode(exec: Docker.Exec): Promise<number | null | 'timeout'> {
  const info = await exec.inspect().catch(() => undefined);
  if (!info || info.Running) return 'timeout';
  return typeof info.ExitCode === 'number' ? info.ExitCode : null;
}

function sink(out: CappedOutput): Writable {
  return new Writable({
    write(chunk: Buffer, _enc, done) {
      out.push(chunk);
      done();
    },
  });
}

/**
 * Writes stdin into the hijacked connection, then half-closes it so the command sees EOF. When a stream source
 * fails, the connection is closed (the command sees its input end) and `onError` gets the source's error.
 */
function feedStdin(
  stream: NodeJS.WritableStream & Readable,
  stdin: string | Buffer | Readable,
  onError: (err: Error) => void,
): void {
  if (typeof stdin === 'string' || Buffer.isBuffer(stdin)) {
    stream.end(stdin);
    return;
  }
  stdin.on('error', (err) => {
    log.warn({ err }, 'stdin source failed; ending the command');
    onError(err);
    stream.destroy();
  });
  stdin.pipe(stream);
}
