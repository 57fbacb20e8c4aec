import { randomBytes } from 'node:crypto';
import { execa } from 'execa';
import type { ExecOptions, ExecResult } from '../types.js';
import { CappedOutput } from '../output-cap.js';
import { DRAIN_AFTER_EXIT_MS, signalExitCode, type ExecDefaults } from '../exec-result.js';
import { killHostTree } from './kill.js';

/**
 * Runs `command` on the host with execa, in its own process group and tagged with `MNEMARA_EXEC_TOKEN`, so that
 * a timeout kills its tree with SIGKILL (group, session, tagged processes and their descendants: see
 * `killHostTree` for what a host cannot catch), and returns once the process has exited and its output drained — or, when a background child keeps
 * stdout open, `DRAIN_AFTER_EXIT_MS` after the exit, leaving that child running as Docker does.
 */
export async function localExec(
  command: string | string[],
  options: ExecOptions,
  defaults: ExecDefaults & { cwd: string; env: Record<string, string>; groups?: Set<number> },
): Promise<ExecResult> {
  const started = performance.now();
  const timeoutMs = options.timeoutMs ?? defaults.timeoutMs;
  const cap = options.maxOutputBytes ?? defaults.maxOutputBytes;
  const [file, ...args] = typeof command === 'string' ? ['bash', '-c', command] : command;
  if (!file) throw new TypeError('exec: empty argv');
  const token = randomBytes(8).toString('hex');
  const stdout = new CappedOutput(cap);
  const stderr = new CappedOutput(cap);
  const sub = execa(file, args, {
    cwd: options.cwd ?? defaults.cwd,
    env: { ...hostBasics(), ...defaults.env, ...options.env, MNEMARA_EXEC_TOKEN: token },
    extendEnv: false,
    detached: true,
    buffer: false,
    reject: false,
    cleanup: true,
    ...(options.stdin === undefined ? { stdin: 'ignore' as const } : { input: options.stdin }),
  });
  if (sub.pid !== undefined) defaults.groups?.add(sub.pid);
  sub.stdout?.on('data', (c: Buffer) => stdout.push(c));
  sub.stderr?.on('data', (c: Buffer) => stderr.push(c));

  let timedOut = false;
  let exitCode: number | null = null;
  const killTree = () => {
    if (sub.pid !== undefined) killHostTree(sub.pid, token);
  };
  const timer = setTimeout(() => {
    timedOut = true;
    killTree();
  }, timeoutMs);
  let interrupted = false;
  const onAbort = (): void => {
    interrupted = true;
    killTree();
  };
  if (options.signal?.aborted) onAbort();
  else options.signal?.addEventListener('abort', onAbort, { once: true });
  let drainTimer: NodeJS.Timeout | undefined;
  sub.once('exit', (code, signal) => {
    exitCode = code ?? (signal ? signalExitCode(signal) : null);
    clearTimeout(timer);
    drainTimer = setTimeout(() => {
      sub.stdout?.destroy();
      sub.stderr?.destroy();
    }, DRAIN_AFTER_EXIT_MS);
  });
  const result = await sub;
  clearTimeout(timer);
  options.signal?.removeEventListener('abort', onAbort);
  // A command that ended before the signal came was not interrupted.
  interrupted &&= exitCode === null || exitCode === signalExitCode('SIGKILL');
  clearTimeout(drainTimer);
  if (sub.pid !== undefined && !groupAlive(sub.pid)) defaults.groups?.delete(sub.pid);
  if (exitCode === null && typeof result.exitCode === 'number') exitCode = result.exitCode;
  if (result.failed && result.exitCode === undefined && result.signal === undefined && !timedOut) {
    // execa could not start the command (ENOENT …): report it like a shell would.
    return {
      exitCode: 127,
      stdout: '',
      stderr: `${result.shortMessage ?? result.message}\n`,
      durationMs: performance.now() - started,
      timedOut,
      truncated: false,
      oomKilled: false,
    };
  }
  return {
    exitCode,
    stdout: stdout.text(),
    stderr: stderr.text(),
    durationMs: performance.now() - started,
    timedOut: timedOut && !interrupted,
    ...(interrupted ? { interrupted: true } : {}),
    truncated: stdout.truncated || stderr.truncated,
    oomKilled: false,
  };
}

/** Whether any process of group `pgid` still runs (a dead group's number may be reused later: forget it). */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Host variables a command needs to behave (PATH, HOME, locale …); nothing else leaks in (no API keys). */
const PASSED_THROUGH = ['PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TERM', 'TMPDIR', 'TZ'];
function hostBasics(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of PASSED_THROUGH) {
    const value = process.env[key];
    if (value !== undefined) env[key] = value;
  }
  return env;
}
