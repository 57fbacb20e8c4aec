/**
 * Trial 23 F13: a session killed after it wrote a `.env` with a live key and a notes file with a token left them in
 * its container; `mnemara recover` (and the next run's adoption) snapshotted both into the branch and the head,
 * while a session that is not killed sets such files aside. The rescue now runs the session's own step 6: the
 * run's token and credential files are set aside under `left-out/`, named in the manifest's `skipped`, and a file
 * that was in the checkout before the run stays. Real Docker; the session is SIGKILLed during a tool call.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/snapshot/index.js';
import { startMessagesServer, text, toolUse, turn, type MessagesServer } from '../support/messages-server.js';
import { removeSessionContainers, scratch } from './harness.js';

const CHILD = fileURLToPath(new URL('./fixtures/session-child.ts', import.meta.url));
const CLI = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const LINEAGE = 'rescue-tokens';
// Fake, but of the shapes the token scan knows.
const KEY = `sk_live_51Rescue${'Q7w'.repeat(8)}`;
const TOKEN = `ghp_RescueTok${'a1B2'.repeat(7)}`;
let dirs: ReturnType<typeof scratch>;
let server: MessagesServer;
let rolloutId: string;

beforeAll(async () => {
  dirs = scratch();
  // The user's own file with a token, in the checkout before the run: it stays.
  writeFileSync(join(dirs.workspace, 'user-notes.txt'), `my token ${TOKEN.replace('Rescue', 'UserOwn')}\n`);
  server = await startMessagesServer([
    turn(text('Writing the config.'), toolUse('bash', { command: `printf 'STRIPE_KEY=${KEY}\\n' > .env && printf 'token ${TOKEN}\\n' > notes.txt && echo 'ok' > src/work.txt && echo done` })),
    turn(text('Long checks.'), toolUse('bash', { command: 'sleep 120' })),
    turn(text('done')),
  ]);
  const child = await execa(process.execPath, ['--import', 'tsx', CHILD], {
    env: { MNEMARA_HOME: dirs.home, ANTHROPIC_BASE_URL: server.url, WORKSPACE: dirs.workspace, LINEAGE, TASK: 'write the config', KILL_AT: 'tool:start#2' },
    reject: false,
  });
  rolloutId = (JSON.parse(child.stdout.split('\n')[0] as string) as { rolloutId: string }).rolloutId;
  expect(child.signal).toBe('SIGKILL');
}, 240_000);

afterAll(async () => {
  if (rolloutId) await removeSessionContainers(rolloutId);
  await server?.close();
  dirs?.cleanup();
});

describe('recover of a killed session whose run wrote token files', () => {
  it('sets them aside as the session would have, and keeps the run\'s other work and the user\'s file', async () => {
    const r = await execa(process.execPath, ['--import', 'tsx', CLI, 'recover', '--lineage', LINEAGE, '--json'], {
      env: { MNEMARA_HOME: dirs.home, MNEMARA_MEMORY_EXTRACTOR: 'deterministic', ANTHROPIC_BASE_URL: server.url },
      reject: false,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    const store = await openStore(join(dirs.home, 'store'));
    const snapshots = await store.list({ lineage: LINEAGE });
    expect(snapshots.length).toBeGreaterThan(0);
    for (const m of snapshots) {
      const out = join(mkdtempSync(join(tmpdir(), 'mnemara-rescue-')), 'x');
      await store.restoreToDirectory(m.id, out);
      // No file holds them: the transcripts under sessions/ are redacted.
      const grep = spawnSync('grep', ['-rlE', 'sk_live_51Rescue|ghp_RescueTok', out], { encoding: 'utf8' });
      expect(grep.status, `snapshot ${m.id}: ${grep.stdout}`).toBe(1);
    }
    const rescued = snapshots.find((m) => m.rolloutIds.includes(rolloutId) && m.kind === 'workspace')!;
    const out = join(mkdtempSync(join(tmpdir(), 'mnemara-rescue-')), 'x');
    await store.restoreToDirectory(rescued.id, out);
    expect(readFileSync(join(out, 'src', 'work.txt'), 'utf8')).toBe('ok\n');
    expect(existsSync(join(out, '.env'))).toBe(false);
    expect(existsSync(join(out, 'notes.txt'))).toBe(false);
    expect(readFileSync(join(out, 'user-notes.txt'), 'utf8')).toContain('ghp_UserOwnTok');
    expect((rescued.skipped ?? []).map((s) => s.path).sort()).toEqual(expect.arrayContaining(['notes.txt']));
    const aside = join(dirs.home, 'left-out', rolloutId);
    expect(readdirSync(aside, { recursive: true }).map(String)).toEqual(expect.arrayContaining(['notes.txt']));
  }, 300_000);
});
