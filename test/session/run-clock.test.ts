/**
 * The run's clock marks which files the run wrote (`find -newerct @<since>`): the token, credential and
 * secret-key scans read only those. In whole seconds, a file restored in the same second as the run began counted
 * as the run's, so a user's untouched token file was read and reported (`secret-files.test.ts` failed 2 runs in 3).
 * Real Docker sandbox.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DockerSandbox } from '../../src/sandbox/index.js';
import { sandboxClock } from '../../src/session/credential-files.js';

let sandbox: DockerSandbox;
beforeAll(async () => {
  sandbox = await DockerSandbox.create({ sessionId: `run-clock-${process.pid}` });
}, 120_000);
afterAll(async () => {
  await sandbox?.close();
});

describe('the run clock', () => {
  it('a file written just before the clock is read is not newer than it; one written after is', async () => {
    for (let i = 0; i < 5; i++) {
      await sandbox.exec(['sh', '-c', `echo restored > before-${i}`]);
      const since = await sandboxClock(sandbox);
      expect(since).not.toBeNull();
      await sandbox.exec(['sh', '-c', `echo run > after-${i}`]);
      const r = await sandbox.exec(['sh', '-c', `find . -maxdepth 1 -type f -name '*-${i}' -newerct "@$1" | sort`, 'sh', String(since)]);
      expect(r.stdout.trim()).toBe(`./after-${i}`);
    }
  }, 120_000);
});
