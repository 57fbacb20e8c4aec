/**
 * A long snapshot reports how far it is, in bytes, while it works on one large file: the new-user trial saw
 * ~95 s without a line while a 2 GiB file written in the sandbox was snapshotted (progress was counted per
 * entry, so one entry gave one event). Here a 256 MiB file of random bytes (dense, incompressible) is written
 * by the agent in the real Docker sandbox; the workspace snapshot (the whole stream: read out of the sandbox,
 * staged, hashed and compressed) must send several byte-progress events for it, with the count going up.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ProgressEvent } from '../../src/config/progress.js';
import { runSession } from '../../src/session.js';
import { openStore } from '../../src/snapshot/index.js';
import { startMessagesServer, text, toolUse, turn, type MessagesServer } from '../support/messages-server.js';
import { removeSessionContainers, scratch, testConfig } from './harness.js';

const MIB = 1024 * 1024;
const SIZE = 256 * MIB;

let server: MessagesServer | undefined;
const dirs = scratch('big-file');
afterAll(async () => {
  await server?.close();
  dirs.cleanup();
});

describe('progress of a snapshot with one large file', () => {
  it('sends byte progress while the file is read out of the sandbox, while it is packed, and while it is restored', async () => {
    server = await startMessagesServer([turn(toolUse('bash', { command: `head -c ${SIZE} /dev/urandom > big.bin && ls -l big.bin` })), turn(text('Done.'))]);
    const events: ProgressEvent[] = [];
    let snapshotStep: 'before' | 'in' | 'after' = 'before';
    const result = await runSession(
      { workspace: dirs.workspace, task: 'Write the data file.', config: testConfig(dirs.home, server.url), lineage: 'big-file' },
      {
        onEvent: (e) => {
          if (e.type !== 'progress') return;
          const p = e.progress;
          if (p.step === 'snapshot' && p.phase === 'start' && snapshotStep === 'before') snapshotStep = 'in';
          else if (p.step === 'snapshot' && p.phase === 'end' && snapshotStep === 'in') snapshotStep = 'after';
          else if (snapshotStep === 'in' && p.step === 'snapshot' && p.phase === 'progress' && p.unit === 'bytes') events.push(p);
        },
      },
    );
    await removeSessionContainers(result.rolloutId);
    expect(result.outcome).toBe('completed');
    expect(result.workspaceSnapshotMode).toMatchObject({ kind: 'full' });

    // Read out of the sandbox and staged: the bytes of the stream so far, no message.
    const streamed = events.filter((p) => p.message === undefined).map((p) => p.done!);
    // More than one while inside the file (an event per entry gives one before it and one after it, none inside).
    expect(streamed.filter((d) => d > 0 && d < SIZE).length, JSON.stringify(events)).toBeGreaterThan(1);
    expect(streamed).toEqual([...streamed].sort((a, b) => a - b));
    // Hashed and compressed into the layer: the file's own bytes out of its size.
    const packed = events.filter((p) => p.message === 'big.bin');
    expect(packed.filter((p) => p.done! > 0 && p.done! < SIZE).length, JSON.stringify(events)).toBeGreaterThan(1);
    expect(packed.every((p) => p.total === SIZE && p.done! <= SIZE)).toBe(true);
    expect(packed.map((p) => p.done!)).toEqual(packed.map((p) => p.done!).sort((a, b) => a - b));

    // And back: restoring the head reports the bytes written while inside the file too.
    const restoring: ProgressEvent[] = [];
    const store = await openStore(join(dirs.home, 'store'));
    await store.restoreToDirectory(result.head!, join(dirs.root, 'out'), { onProgress: (p) => void (p.phase === 'progress' && p.unit === 'bytes' && restoring.push(p)) });
    expect(restoring.filter((p) => p.done! > 0 && p.done! < SIZE).length, JSON.stringify(restoring)).toBeGreaterThan(1);
  }, 300_000);
});
