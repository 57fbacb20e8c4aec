/**
 * Nothing is lost when the store fails: if the workspace snapshot cannot be written, the session fails with
 * SNAPSHOT_FAILED, keeps the container (the work is only there now) and says how to copy the work out; the
 * transcript is on the host.
 */
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MnemaraError } from '../../src/config/errors.js';
import { runSession } from '../../src/session.js';
import { dockerClient, LABEL } from '../../src/sandbox/index.js';
import { startMessagesServer, text, toolUse, turn, type MessagesServer } from '../support/messages-server.js';
import { removeSessionContainers, scratch, testConfig, transcriptTypes } from './harness.js';

let dirs: ReturnType<typeof scratch>;
let server: MessagesServer;
let rolloutId = '';
let failure: unknown;

beforeAll(async () => {
  dirs = scratch();
  server = await startMessagesServer([turn(toolUse('bash', { command: 'echo precious > work.txt' })), turn(text('done'))]);
  const config = testConfig(dirs.home, server.url);
  try {
    await runSession(
      { workspace: dirs.workspace, task: 'write the work', config, lineage: 'broken-store' },
      {
        onEvent: (e) => {
          if (e.type === 'started') rolloutId = e.rolloutId;
          // While the agent runs, break the store: its blob folder becomes a file.
          if (e.type === 'progress' && e.progress.step === 'agent' && e.progress.phase === 'start') {
            const blobs = join(config.snapshot.store as string, 'blobs');
            rmSync(blobs, { recursive: true, force: true });
            writeFileSync(blobs, 'not a directory');
          }
        },
      },
    );
  } catch (err) {
    failure = err;
  }
}, 120_000);

afterAll(async () => {
  if (rolloutId) await removeSessionContainers(rolloutId);
  await server?.close();
  dirs?.cleanup();
});

describe('a workspace snapshot that cannot be written', () => {
  it('fails with SNAPSHOT_FAILED, keeps the container with the work, and keeps the transcript', async () => {
    expect(failure).toBeInstanceOf(MnemaraError);
    const err = failure as MnemaraError;
    expect(err.code).toBe('SNAPSHOT_FAILED');
    expect(err.hint).toContain('docker cp');
    const docker = dockerClient();
    const [kept] = await docker.listContainers({ filters: { label: [`${LABEL.session}=${rolloutId}`] } });
    expect(kept?.State).toBe('running');
    const exec = await docker.getContainer(kept!.Id).exec({ Cmd: ['cat', '/workspace/work.txt'], AttachStdout: true });
    const stream = await exec.start({});
    const chunks: Buffer[] = [];
    for await (const c of stream) chunks.push(c as Buffer);
    expect(Buffer.concat(chunks).toString('utf8')).toContain('precious');
    const transcript = join(dirs.home, 'transcripts', `${rolloutId}.jsonl`);
    expect(existsSync(transcript)).toBe(true);
    expect(transcriptTypes(transcript).at(-1)).toMatchObject({ type: 'session_end', outcome: 'completed' });
  });
});
