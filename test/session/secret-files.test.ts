/**
 * Files the agent writes that hold a token (`f4.env` with `GITHUB_TOKEN=ghp_…`, `config.js` with
 * `const key = "sk-ant-…"`) never reach a workspace layer, on the whole-stream path (first session) and on the
 * change path (a session restored from the head); they are set aside on the host for the user (0600) and named
 * in the result and the summary. The user's own files with a token stay (never silently dropped), an installed
 * package's example token is not looked at, and files redaction's fuzzy rules would flag stay. Real Docker
 * sandbox, the scripted Messages server as the model.
 */
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatSummary } from '../../src/cli/commands/run.js';
import { runSession, type SessionResult } from '../../src/session.js';
import { openStore } from '../../src/snapshot/index.js';
import { startMessagesServer, text, toolUse, turn, type MessagesServer } from '../support/messages-server.js';
import { scratch, testConfig, blobsText } from './harness.js';

const GH = 'ghp_FAKEf4env0a1B2c3D4e5F6g7H8i9J0kLmNoPq';
const ANT = 'sk-ant-api03-FAKEconfigJs9Xv2Lm7Rt4Wz8Kp1Ns6Bd3';
const SLACK = 'xoxb-FAKE20261202-1234567890123-SecondRunToken';
const USER_UNTOUCHED = 'ghp_FAKEuserUntouched0a1B2c3D4e5F6g7H8i9J0';
const USER_EDITED = 'sk_live_FAKEuserEditedFile51H8u2e3ab';
const DEP_EXAMPLE = 'ghp_FAKEinstalledPackageReadme0a1B2c3D4e5';
// Written base64-encoded by the second run (`… | base64 > token.b64`): grep saw no prefix (issue 10 trial).
const GH_B64 = 'ghp_FAKEbase64Wrapped0a1B2c3D4e5F6g7H8i9J';
// And hex-encoded (`od -An -tx1 | tr -d` is `xxd -p -c0` where xxd is missing).
const AWS_HEX = 'AKIAFAKEHEX2WQ7ZR4TN';
// Encodings wrapped over lines, which leave a line with the prefix but not the whole token: hex 16 bytes a line
// (`od -An -tx1 | tr -d ' '`; `xxd -p` breaks every 30), base64 every 57 bytes with the token starting late.
const GH_OD = 'ghp_FAKEodWrapped0a1B2c3D4e5F6g7H8i9J0kLm';
const GH_LATE = 'ghp_FAKElateBase64a1B2c3D4e5F6g7H8i9J0kLm';
const LATE_B64 = Buffer.from(`${'0'.repeat(40)}${GH_LATE}`).toString('base64');

const firstRun = [
  `printf 'GITHUB_TOKEN=${GH}\\nLOG_LEVEL=debug\\n' > f4.env`,
  `mkdir -p src && printf 'const key = "${ANT}";\\nexport default key;\\n' > src/config.js`,
  // Not secrets to the high-confidence check: an annotation, a dev URL, a password under a secret-looking name.
  `printf 'const [token, setToken]: [string, React.Dispatch<string>] = useState("");\\n' > src/App.tsx`,
  `printf 'DB_URL ?= postgres://user:pass@localhost:5432/app\\nPASSWORD=FAKEfuzzyOnly42\\n' > Makefile.local`,
  `mkdir -p node_modules/some-sdk && printf 'auth("${DEP_EXAMPLE}")\\n' > node_modules/some-sdk/README.md`,
  // A password beside the token: the file is reported once, as holding a token (round 17: twice, the second line
  // saying its values have "no known token shape").
  `printf '\\nSTRIPE=${USER_EDITED}\\nDB_PASSWORD=FAKEsettingsPw7x\\n' >> settings.env`,
  'echo hello > notes.txt',
].join('\n');

let dirs: ReturnType<typeof scratch>;
let server: MessagesServer;
let first: SessionResult;
let second: SessionResult;

beforeAll(async () => {
  dirs = scratch('secret-files');
  // The user's own files: one the run never touches, one it edits.
  mkdirSync(join(dirs.workspace, 'config'), { recursive: true });
  writeFileSync(join(dirs.workspace, 'config', 'ci.env'), `GH_TOKEN=${USER_UNTOUCHED}\n`);
  writeFileSync(join(dirs.workspace, 'settings.env'), 'MODE=dev\n');
  server = await startMessagesServer([
    turn(toolUse('bash', { command: firstRun })),
    turn(text('Configured.')),
    turn(toolUse('bash', { command: `printf '#!/bin/sh\\ncurl -H "Authorization: Bearer ${SLACK}" https://slack.com/api/chat.postMessage\\n' > deploy.sh && echo more >> notes.txt && printf '%s' '${GH_B64}' | base64 > token.b64 && printf '%s' '${AWS_HEX}' | od -An -tx1 -v | tr -d ' \\n' > key.hex && printf '%s' '${GH_OD}' | od -An -tx1 -v | tr -d ' ' > key.od.hex && printf '%040d%s' 0 '${GH_LATE}' | base64 > late.b64` })),
    turn(text('Added the deploy script.')),
  ]);
  const config = testConfig(dirs.home, server.url);
  first = await runSession({ workspace: dirs.workspace, task: 'Configure the app.', config, lineage: 'tokens' });
  second = await runSession({ workspace: dirs.workspace, task: 'Add a deploy script.', config, lineage: 'tokens' });
}, 300_000);
afterAll(async () => {
  await server?.close();
  dirs?.cleanup();
});

describe('files the run wrote that hold a token', () => {
  it('are left out of the whole-stream snapshot, listed in skipped, named in the result', async () => {
    expect(first.outcome).toBe('completed');
    expect(first.workspaceSnapshotMode?.kind).toBe('full');
    const manifest = await (await openStore(join(dirs.home, 'store'))).get(first.workspaceSnapshot!);
    expect((manifest.skipped ?? []).map((s) => s.path).sort()).toEqual(['f4.env', 'src/config.js']);
    expect((manifest.skipped ?? []).every((s) => /holds a token/.test(s.reason))).toBe(true);
    const out = first.secretFiles?.filter((f) => f.action === 'left-out') ?? [];
    expect(out.map((f) => [f.path, f.kinds])).toEqual([['f4.env', ['github_token']], ['src/config.js', ['anthropic_key']]]);
  });

  it('are set aside for the user on the host, readable only by them, and the summary says where', () => {
    for (const f of first.secretFiles!.filter((x) => x.action === 'left-out')) {
      expect(f.savedAt).toBe(join(dirs.home, 'left-out', first.rolloutId, f.path));
      expect(statSync(f.savedAt!).mode & 0o777).toBe(0o600);
      expect(statSync(join(dirs.home, 'left-out')).mode & 0o777).toBe(0o700);
    }
    expect(readFileSync(join(dirs.home, 'left-out', first.rolloutId, 'f4.env'), 'utf8')).toBe(`GITHUB_TOKEN=${GH}\nLOG_LEVEL=debug\n`);
    const summary = formatSummary(first);
    expect(summary).toContain(`secret      f4.env holds a token (github_token) and was left out of the workspace snapshot; your copy is ${join(dirs.home, 'left-out', first.rolloutId, 'f4.env')}`);
  });

  it("keeps the user's own edited file in the snapshot and says why; the untouched one is not even read", () => {
    expect(first.secretFiles?.find((f) => f.path === 'settings.env')).toMatchObject({ action: 'kept', kinds: ['stripe_key'] });
    expect(first.secretFiles?.find((f) => f.path === 'settings.env')?.why).toMatch(/before the run/);
    expect(first.secretFiles?.find((f) => f.path === 'config/ci.env')).toBeUndefined();
    expect(formatSummary(first)).toMatch(/settings\.env holds a token \(stripe_key\) and is in the workspace snapshot: .*snapshot\.ignore/);
    expect(first.secretKeyFiles?.map((f) => f.path)).not.toContain('settings.env');
    expect(formatSummary(first).match(/settings\.env holds/g)).toHaveLength(1);
  });

  it('are left out on the change path too', () => {
    expect(second.outcome).toBe('completed');
    expect(second.workspaceSnapshotMode?.kind).toBe('changes');
    expect(second.secretFiles).toEqual([
      { path: 'deploy.sh', kinds: ['slack_token'], action: 'left-out', savedAt: join(dirs.home, 'left-out', second.rolloutId, 'deploy.sh') },
      { path: 'key.hex', kinds: ['aws_access_key_id'], action: 'left-out', savedAt: join(dirs.home, 'left-out', second.rolloutId, 'key.hex') },
      { path: 'key.od.hex', kinds: ['github_token'], action: 'left-out', savedAt: join(dirs.home, 'left-out', second.rolloutId, 'key.od.hex') },
      { path: 'late.b64', kinds: ['github_token'], action: 'left-out', savedAt: join(dirs.home, 'left-out', second.rolloutId, 'late.b64') },
      { path: 'token.b64', kinds: ['github_token'], action: 'left-out', savedAt: join(dirs.home, 'left-out', second.rolloutId, 'token.b64') },
    ]);
  });

  it('store no byte of them in any blob, and keep every other file', () => {
    const blobs = blobsText(dirs.home);
    const found = Object.entries({ GH, ANT, SLACK, GH_B64: Buffer.from(GH_B64).toString('base64'), AWS_HEX: Buffer.from(AWS_HEX).toString('hex'), GH_OD: Buffer.from(GH_OD).toString('hex').slice(0, 32), LATE_B64: LATE_B64.slice(0, 76) }).filter(([, v]) => blobs.includes(v)).map(([k]) => k);
    expect(found).toEqual([]);
    for (const kept of [USER_UNTOUCHED, USER_EDITED, DEP_EXAMPLE, 'setToken', 'user:pass@localhost', 'FAKEfuzzyOnly42']) expect(blobs).toContain(kept);
  });
});
