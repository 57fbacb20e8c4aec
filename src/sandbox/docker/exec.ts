import { randomBytes } from 'node:crypto';
import { Writable, type Readable } from 'node:stream';
import type Docker from 'dockerode';
import { logger } from '../../config/logger.js';
import { CappedOutput } from '../output-cap.js';
import { SandboxError } from '../errors.js';

const log = logger('sandbox');

/** In-image helpers (sandbox-image/bin): the exec wrapper that tags a tree, and the killer of a tagged tree. */
const EXEC_WRAPPER = '/opt/mnemara/bin/mnemara-exec';
const KILLER = '/opt/mnemara/bin/mnemara-kill';
/** After a kill, how long (ms) to wait for the stream to end before dropping it. */
const STREAM_GRACE_MS = 5_000;

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
}

/** What a raw exec did: the collectors keep the bytes, so callers choose between text and raw. */
export interface RawExecResult {
  exitCode: number | null;
  stdout: CappedOutput;
  stderr: CappedOutput;
  timedOut: boolean;
  durationMs: number;
}

/**
 * Runs argv in the container under `mnemara-exec` (a new process group tagged with a random token), with stdout
 * and stderr demultiplexed into head+tail collectors. Returns once the stream has ended — Docker ends it at most
 * 2 s after the process exits even when a background child holds stdout — and exec inspect says the process has
 * ended (a process that closed its output early is waited for); the exit code is inspect's, `null` only when
 * Docker has none. On timeout, a second exec (`mnemara-kill`) SIGKILLs the whole tagged tree. Throws
 * `SandboxError('SANDBOX_FAILED')` only when the engine refuses the exec itself.
 */
export async function rawExec(container: Docker.Container, docker: Docker, req: RawExecRequest): Promise<RawExecResult> {
  const started = performance.now();
  const token = randomBytes(8).toString('hex');
  const hasStdin = req.stdin !== undefined;
  const exec = await container
    .exec({
      Cmd: [EXEC_WRAPPER, token, ...req.argv],
      AttachStdout: true,
      AttachStderr: true,
      AttachStdin: hasStdin,
      Tty: false,
      ...(req.cwd ? { WorkingDir: req.cwd } : {}),
      Env: Object.entries(req.env ?? {}).map(([k, v]) => `${k}=${v}`),
    })
    .catch((err: unknown) => {
      throw refused(err);
    });
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
  if (hasStdin) feedStdin(stream, req.stdin!);

  const watcher = watchForExit(exec, stream);
  let timer: NodeJS.Timeout | undefined;
  const deadline =
    req.timeoutMs === undefined
      ? new Promise<never>(() => {})
      : new Promise<'timeout'>((resolve) => {
          timer = setTimeout(() => resolve('timeout'), req.timeoutMs);
        });
  try {
    // The stream ends when the process and every holder of its output are done (or Docker gives up on them);
    // a process that closed its output early is still running, so wait for its end as well.
    const first = await Promise.race([ended.then(() => 'ended' as const), deadline]);
    const exited = first === 'ended' ? await waitForExit(exec, deadline) : first;
    if (exited !== 'timeout') {
      return { exitCode: exited, stdout, stderr, timedOut: false, durationMs: performance.now() - started };
    }
    await killTree(container, token);
    const gone = await Promise.race([ended.then(() => true), delay(STREAM_GRACE_MS).then(() => false)]);
    if (!gone) stream.destroy();
    const exitCode = await exitCodeOf(exec);
    return { exitCode, stdout, stderr, timedOut: true, durationMs: performance.now() - started };
  } finally {
    clearTimeout(timer);
    clearInterval(watcher);
  }
}

/**
 * Polls exec inspect until the process has ended (its exit code, or `null` when Docker has none), or the
 * deadline comes first (`'timeout'`). Polls fast at first: the process has usually ended with its stream.
 */
async function waitForExit(exec: Docker.Exec, deadline: Promise<'timeout'>): Promise<number | null | 'timeout'> {
  let pause = 0;
  let passed = false;
  void deadline.then(() => {
    passed = true;
  });
  for (;;) {
    try {
      const info = await exec.inspect();
      if (!info.Running) return typeof info.ExitCode === 'number' ? info.ExitCode : null;
    } catch (err) {
      log.warn({ err }, 'exec inspect failed; exit code unknown');
      return null;
    }
    if (passed) return 'timeout';
    const next = await Promise.race([delay(pause).then(() => 'poll' as const), deadline]);
    if (next === 'timeout') return 'timeout';
    pause = Math.min(Math.max(pause * 2, 25), 500);
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

function sink(out: CappedOutput): Writable {
  return new Writable({
    write(chunk: Buffer, _enc, done) {
      out.push(chunk);
      done();
    },
  });
}

/**
 * Docker 20.10 ends the stream at most 2 s after the process exits even when a background child still holds
 * stdout; not every engine promises that. From the second second on, look once a second whether the process has
 * ended, and drop the stream when it has been over for `AFTER_EXIT_GRACE_MS` and the stream is still open.
 */
const AFTER_EXIT_GRACE_MS = 3_000;
function watchForExit(exec: Docker.Exec, stream: Readable): NodeJS.Timeout {
  let exitedAt: number | undefined;
  let busy = false;
  return setInterval(() => {
    if (busy) return;
    busy = true;
    exec
      .inspect()
      .then((info) => {
        if (info.Running) return;
        exitedAt ??= Date.now();
        if (Date.now() - exitedAt >= AFTER_EXIT_GRACE_MS) {
          log.debug('process ended but its output stream stayed open; dropping it');
          stream.destroy();
        }
      })
      .catch(() => {})
      .finally(() => {
        busy = false;
      });
  }, 1_000);
}

/** Writes stdin into the hijacked connection, then half-closes it so the command sees EOF. */
function feedStdin(stream: NodeJS.WritableStream & Readable, stdin: string | Buffer | Readable): void {
  if (typeof stdin === 'string' || Buffer.isBuffer(stdin)) {
    stream.end(stdin);
    return;
  }
  stdin.on('error', (err) => {
    log.warn({ err }, 'stdin source failed; ending the command');
    stream.destroy(err);
  });
  stdin.pipe(stream);
}

/** Reads the exit code once Docker says the process ended; polls up to ~2 s, then gives up with `null`. */
async function exitCodeOf(exec: Docker.Exec): Promise<number | null> {
  for (let attempt = 0; attempt < 40; attempt++) {
    try {
      const info = await exec.inspect();
      if (!info.Running) return typeof info.ExitCode === 'number' ? info.ExitCode : null;
    } catch (err) {
      log.warn({ err }, 'exec inspect failed');
      return null;
    }
    await delay(50);
  }
  return null;
}

/**
 * SIGKILLs every process of the tagged tree. The killer uses bash builtins only, but starting it still needs one
 * free process slot, which a fork bomb may hold: retry for a few seconds before giving up (logged).
 */
async function killTree(container: Docker.Container, token: string): Promise<void> {
  for (let attempt = 0; attempt < 30; attempt++) {
    try {
      const exec = await container.exec({ Cmd: [KILLER, token], AttachStdout: true, AttachStderr: true });
      const stream = (await exec.start({ hijack: false, Tty: false })) as Readable;
      stream.resume();
      await new Promise<void>((resolve) => {
        stream.once('end', resolve);
        stream.once('close', resolve);
        stream.once('error', () => resolve());
      });
      const info = await exec.inspect();
      if (info.ExitCode === 0) return;
      log.debug({ exitCode: info.ExitCode, attempt }, 'mnemara-kill did not finish; retrying');
    } catch (err) {
      log.debug({ err, attempt }, 'could not start mnemara-kill; retrying');
    }
    await delay(100);
  }
  log.error({ token }, 'could not kill the timed-out process tree');
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
