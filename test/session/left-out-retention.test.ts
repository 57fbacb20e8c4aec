/**
 * `<home>/left-out/` holds secrets: the files a run wrote that hold a token and the credential files, set aside
 * instead of packed (issue 10, round 6 finding: never cleaned). Every folder there is 0700 and every file 0600,
 * also under a `left-out/` an older version made 0755; the run summary names the folder; `mnemara doctor` lists
 * them (count, bytes, oldest); `mnemara gc` removes a run's folder once it is older than snapshot.leftOutDays
 * (7 by default), or all at once with --left-out-now. Real Docker sandbox, the scripted Messages server.
 */
import { chmodSync, existsSync, mkdirSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatSummary } from '../../src/cli/commands/run.js';
import { runSession, type SessionResult } from '../../src/session.js';
import { startMessagesServer, text, toolUse, turn, type MessagesServer } from '../support/messages-server.js';
import { scratch, testConfig } from './harness.js';

const CLI = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const GH = 'ghp_FAKEleftOutRetention0a1B2c3D4e5F6g7H8i9';
const PEM = 'b3BlbnNzaFAKEleftOutDeployKey1234';
let dirs: ReturnType<typeof scratch>;
let server: MessagesServer;
let run: SessionResult;
let runDir: string;
const OLD = '20261101T090000000Z-0ldrun0000';

const cli = (args: string[]) =>
  execa(process.execPath, ['--import', 'tsx', CLI, ...args], { reject: false, env: { MNEMARA_HOME: dirs.home, MNEMARA_LOG_LEVEL: 'warn' } });

/** `[path, mode]` of everything under `dir`, folders and files. */
function modes(dir: string): [string, number, boolean][] {
  const out: [string, number, boolean][] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    const st = statSync(p);
    out.push([p, st.mode & 0o777, st.isDirectory()]);
    if (st.isDirectory()) out.push(...modes(p));
  }
  return out;
}

beforeAll(async () => {
  dirs = scratch('left-out-retention');
  // What an older version (or a umask of 022) left: a readable left-out/ with an old run's folder in it.
  mkdirSync(join(dirs.home, 'left-out', OLD, 'config'), { recursive: true, mode: 0o755 });
  writeFileSync(join(dirs.home, 'left-out', OLD, 'config', 'old key.pem'), 'an old secret\n', { mode: 0o644 });
  const tenDaysAgo = new Date(Date.now() - 10 * 86_400_000);
  utimesSync(join(dirs.home, 'left-out', OLD, 'config', 'old key.pem'), tenDaysAgo, tenDaysAgo);
  utimesSync(join(dirs.home, 'left-out', OLD, 'config'), tenDaysAgo, tenDaysAgo);
  utimesSync(join(dirs.home, 'left-out', OLD), tenDaysAgo, tenDaysAgo);
  const write = [
    `mkdir -p 'deploy/Prod Keys' && printf -- '-----BEGIN OPENSSH PRIVATE KEY-----\\n${PEM}\\n-----END OPENSSH PRIVATE KEY-----\\n' > 'deploy/Prod Keys/id_ed25519'`,
    `mkdir -p src/config && printf 'GITHUB_TOKEN=${GH}\\nPORT=3000\\n' > 'src/config/sérvice.local.env'`,
    'echo ok > README.local.md',
  ].join(' && ');
  server = await startMessagesServer([turn(toolUse('bash', { command: write })), turn(text('Wrote the deploy setup.'))]);
  run = await runSession({ workspace: dirs.workspace, task: 'Set up the deploy keys.', config: testConfig(dirs.home, server.url), lineage: 'left-out' });
  runDir = join(dirs.home, 'left-out', run.rolloutId);
}, 300_000);

afterAll(async () => {
  await server?.close();
  dirs?.cleanup();
});

describe('left-out files', () => {
  it('are readable only by the user: folders 0700, files 0600, under a left-out/ an older version made 0755', () => {
    expect(existsSync(join(runDir, 'deploy', 'Prod Keys', 'id_ed25519'))).toBe(true);
    expect(existsSync(join(runDir, 'src', 'config', 'sérvice.local.env'))).toBe(true);
    const all = [[join(dirs.home, 'left-out'), statSync(join(dirs.home, 'left-out')).mode & 0o777, true] as [string, number, boolean], ...modes(runDir)];
    expect(all.filter(([, mode, dir]) => mode !== (dir ? 0o700 : 0o600))).toEqual([]);
  });

  it('the run summary names the folder they are in and how they go', () => {
    const text = formatSummary(run);
    expect(text).toContain(`left out    2 file(s) set aside in ${runDir}/`);
    expect(text).toContain('mnemara gc');
  });

  it('doctor lists them: how many, how big, since when, where', async () => {
    const r = await cli(['doctor', '--json']);
    const check = (JSON.parse(r.stdout) as { checks: { name: string; ok: boolean; detail: string; fix?: string }[] }).checks.find((c) => c.name === 'left-out')!;
    expect(check.ok).toBe(false);
    expect(check.detail).toMatch(/^3 file\(s\) of 2 run\(s\), \d+(\.\d+)? ?\w*B, oldest 2026-/);
    expect(check.detail).toContain(join(dirs.home, 'left-out'));
    expect(check.fix).toContain('mnemara gc');
  }, 120_000);

  it('gc removes a run past the retention (a dry run first), keeps the newer one, and locks down what stays', async () => {
    const dry = await cli(['gc', '--dry-run', '--json']);
    expect(dry.exitCode, dry.stderr).toBe(0);
    const planned = JSON.parse(dry.stdout) as { leftOut: { days: number; removed: { rolloutId: string }[]; kept: { rolloutId: string }[] } };
    expect(planned.leftOut.days).toBe(7);
    expect(planned.leftOut.removed.map((x) => x.rolloutId)).toEqual([OLD]);
    expect(existsSync(join(dirs.home, 'left-out', OLD))).toBe(true);

    // A copy someone opened up (chmod 644) is locked down again by gc.
    const key = join(runDir, 'deploy', 'Prod Keys', 'id_ed25519');
    chmodSync(key, 0o644);
    const r = await cli(['gc', '--json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(statSync(key).mode & 0o777).toBe(0o600);
    const done = JSON.parse(r.stdout) as typeof planned;
    expect(done.leftOut.removed.map((x) => x.rolloutId)).toEqual([OLD]);
    expect(done.leftOut.kept.map((x) => x.rolloutId)).toEqual([run.rolloutId]);
    expect(existsSync(join(dirs.home, 'left-out', OLD))).toBe(false);
    expect(existsSync(runDir)).toBe(true);
  }, 120_000);

  it('gc refuses a retention that is not a number of days (exit 2), and --left-out-now removes the rest', async () => {
    const bad = await cli(['gc', '--left-out-days', 'a week']);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('--left-out-days');
    const now = await cli(['gc', '--left-out-now']);
    expect(now.exitCode, now.stderr).toBe(0);
    expect(now.stdout).toContain(`removed ${runDir}`);
    expect(readdirSync(join(dirs.home, 'left-out'))).toEqual([]);
    const r = await cli(['doctor', '--json']);
    expect((JSON.parse(r.stdout) as { checks: { name: string; ok: boolean }[] }).checks.find((c) => c.name === 'left-out')?.ok).toBe(true);
  }, 120_000);
});
