/**
 * mnemara's own model credential, echoed back by a gateway that refused it (twelfth new-user trial, F9: "key
 * gw-live-… is not allowed for model …"), reached the transcript, MEMORY.md, memory_summary.md, the rollout
 * summary and the printed summary: a gateway's key has no provider prefix for the token rules to see. Now every
 * value mnemara sends as its credential is replaced wherever it appears. Real Docker sandbox, the scripted
 * Messages server as the gateway.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatSummary } from '../../src/cli/commands/run.js';
import { forgetKnownSecretValues } from '../../src/memory/redact-known.js';
import { runSession, type SessionResult } from '../../src/session.js';
import { error, startMessagesServer, toolUse, turn, type MessagesServer } from '../support/messages-server.js';
import { blobsText, scratch, testConfig } from './harness.js';

const KEY = 'gw-live-8f3k2m9x7q4p1z6w5t0rFAKE';

let dirs: ReturnType<typeof scratch>;
let server: MessagesServer;
let run: SessionResult;

/** Every file under `dir`, as text. */
function allText(dir: string): string {
  let all = '';
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    all += statSync(p).isDirectory() ? allText(p) : readFileSync(p, 'latin1');
  }
  return all;
}

beforeAll(async () => {
  dirs = scratch('own-key');
  server = await startMessagesServer([
    turn(toolUse('bash', { command: 'echo checking the environment' })),
    error(400, { message: `invalid_request: key ${KEY} is not allowed for model claude-x` }),
  ]);
  run = await runSession({ workspace: dirs.workspace, task: 'Check the environment.', config: testConfig(dirs.home, server.url, { ANTHROPIC_API_KEY: KEY }), lineage: 'own-key' });
}, 300_000);
afterAll(async () => {
  forgetKnownSecretValues();
  await server?.close();
  dirs?.cleanup();
});

describe("the model credential mnemara sends, echoed in the API's error", () => {
  it('is in no file of the home, no blob, and not in the printed summary', () => {
    expect(run.outcome).toBe('error');
    expect(server.requests.length).toBeGreaterThanOrEqual(2);
    expect(formatSummary(run)).not.toContain(KEY);
    expect(readFileSync(run.transcriptPath!, 'utf8')).toContain('is not allowed for model');
    expect(blobsText(dirs.home)).not.toContain(KEY);
    expect(allText(dirs.home)).not.toContain(KEY);
  });
});
