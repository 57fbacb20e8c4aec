/**
 * Trial 23 F9: a repository whose MEMORY.md holds a token came into the sandbox as it was, was redacted there before
 * the workspace snapshot (step 6), and the redacted copy was judged the agent's edit: "edits of MEMORY.md by the
 * run's agent that do not win", printed with the entries, though the run never touched MEMORY.md. The start is now
 * compared as redacted too. Real Docker session, scripted model.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSession } from '../../src/session.js';
import { startMessagesServer, text, toolUse, turn, type MessagesServer } from '../support/messages-server.js';
import { withStderr } from '../support/stderr.js';
import { scratch, testConfig } from './harness.js';

let dirs: ReturnType<typeof scratch>;
let server: MessagesServer;

beforeAll(async () => {
  dirs = scratch();
  mkdirSync(join(dirs.workspace, 'memories'), { recursive: true });
  writeFileSync(
    join(dirs.workspace, 'memories', 'MEMORY.md'),
    '# Memory\n\n## Procedures\n\n- Deploy with `DEPLOY_TOKEN=ghp_FAKErealLookingTokenAbcdefghijklmnop01 ./deploy.sh`.\n',
  );
  server = await startMessagesServer([turn(toolUse('bash', { command: 'ls' })), turn(text('Looked around; nothing to change.'))]);
}, 60_000);

afterAll(async () => {
  await server?.close();
  dirs?.cleanup();
});

describe('a repository MEMORY.md with a secret, untouched by the run', () => {
  it('is not taken for an edit by the agent, and no warning names its entries', async () => {
    const { value: result, stderr } = await withStderr(() =>
      runSession({ workspace: dirs.workspace, task: 'look around', config: testConfig(dirs.home, server.url), lineage: 'host-md' }),
    );
    expect(result.outcome).toBe('completed');
    expect(stderr).not.toMatch(/do not win|did not win/);
    expect(stderr).not.toContain('ghp_FAKErealLooking');
  }, 300_000);
});
