import type { Readable } from 'node:stream';
import type Docker from 'dockerode';
import { logger } from '../../config/logger.js';
import { delay } from './delay.js';

const log = logger('sandbox');

/**
 * Polls exec inspect until the process has ended (its exit code, or `null` when Docker has none), or the
 * deadline comes first (`'timeout'`). Polls fast at first: the process has usually ended with its stream.
 */
export async function waitForExit(exec: Docker.Exec, deadline: Promise<'timeout'>): Promise<number | null | 'timeout'> {
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

/** Reads the exit code once Docker says the process ended; polls up to ~2 s, then gives up with `null`. */
export async function exitCodeOf(exec: Docker.Exec): Promise<number | null> {
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
 * Docker 20.10 ends the stream at most 2 s after the process exits even when a background child still holds
 * stdout; not every engine promises that. From the second second on, look once a second whether the process has
 * ended, and drop the stream when it has been over for `AFTER_EXIT_GRACE_MS` and the stream is still open.
 */
const AFTER_EXIT_GRACE_MS = 3_000;
export function watchForExit(exec: Docker.Exec, stream: Readable): NodeJS.Timeout {
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

