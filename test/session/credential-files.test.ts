/**
 * Issue 10, item 8: credential files the agent writes into the workspace (a GCP service-account JSON, a PEM key,
 * a .netrc) never reach a workspace layer at rest, on the whole-stream path (first session) and on the change
 * path (a session restored from the head). Files that were in the user's checkout stay, and so does code that
 * merely quotes a key. Real Docker sandbox, the scripted Messages server as the model.
 */
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSession, type SessionResult } from '../../src/session.js';
import { openStore } from '../../src/snapshot/index.js';
import { startMessagesServer, text, toolUse, turn, type MessagesServer } from '../support/messages-server.js';
import { scratch, testConfig, blobsText } from './harness.js';

const GCP_BODY = 'MIIEvFAKEgcpServiceAccountBODY0123';
const PEM_BODY = 'b3BlbnNzaFAKEdeployKeyBODY4567';
// A token as the password: the file is both a credential file and a token file; the token scan, which runs at
// the same time as the credential scan, must leave it to that scan (listed and set aside once).
const NETRC_PW = 'ghp_FAKEnetrcFile0a1B2c3D4e5F6g7H8i9J0kL';
const SECOND_BODY = 'MIIEvFAKEsecondSessionKEY8899';
const CODE_BODY = 'MIIBFAKEquotedInCodeOnly';
const USER_PW = 'FAKEuserOwnPgpass11';
const DEP_BODY = 'MIIBFAKEinstalledPackageTestKey42';

const gcp = JSON.stringify({ type: 'service_account', project_id: 'demo', private_key_id: 'abc', private_key: `-----BEGIN PRIVATE KEY-----\n${GCP_BODY}\n-----END PRIVATE KEY-----\n`, client_email: 'x@demo.iam.gserviceaccount.com' }, null, 2);
const writeFiles = [
  `cat > gcp.json <<'EOF'\n${gcp}\nEOF`,
  `mkdir -p keys && printf -- '-----BEGIN OPENSSH PRIVATE KEY-----\\n${PEM_BODY}\\n-----END OPENSSH PRIVATE KEY-----\\n' > keys/deploy_key`,
  `printf 'machine api.example.com\\n  login bot\\n  password ${NETRC_PW}\\n' > .netrc`,
  // Code that quotes a key inside other text is the user's code: it stays (redaction is for transcripts).
  `printf 'export const sample = \`-----BEGIN PRIVATE KEY-----\\n${CODE_BODY}\\n-----END PRIVATE KEY-----\`;\\nexport const n = 1;\\n' > keytest.ts`,
  `echo hello > notes.txt`,
  // An installed package's test key (npm packages ship them): the package manager's file, not looked at.
  `mkdir -p node_modules/public-encrypt/test && printf -- '-----BEGIN RSA PRIVATE KEY-----\\n${DEP_BODY}\\n-----END RSA PRIVATE KEY-----\\n' > node_modules/public-encrypt/test/test_key.pem`,
].join('\n');

let dirs: ReturnType<typeof scratch>;
let server: MessagesServer;
let first: SessionResult;
let second: SessionResult;

beforeAll(async () => {
  dirs = scratch('credential-files');
  // A credential file that was in the user's checkout before any run: the user's, it stays.
  mkdirSync(join(dirs.workspace, 'ops'), { recursive: true });
  writeFileSync(join(dirs.workspace, 'ops', '.pgpass'), `db.internal:5432:app:app:${USER_PW}\n`);
  server = await startMessagesServer([
    turn(toolUse('bash', { command: writeFiles })),
    turn(text('Wrote the files.')),
    turn(toolUse('bash', { command: `printf -- '-----BEGIN RSA PRIVATE KEY-----\\n${SECOND_BODY}\\n-----END RSA PRIVATE KEY-----\\n' > second.pem && echo more >> notes.txt` })),
    turn(text('Done again.')),
  ]);
  const config = testConfig(dirs.home, server.url);
  first = await runSession({ workspace: dirs.workspace, task: 'Set up deploy credentials.', config, lineage: 'creds' });
  second = await runSession({ workspace: dirs.workspace, task: 'Add another key.', config, lineage: 'creds' });
}, 300_000);
afterAll(async () => {
  await server?.close();
  dirs?.cleanup();
});

describe('credential files the run wrote are left out of the workspace snapshot', () => {
  it('leaves them out on the whole-stream path, lists them in skipped, and names them in the result', async () => {
    expect(first.outcome).toBe('completed');
    expect(first.workspaceSnapshotMode?.kind).toBe('full');
    const store = await openStore(join(dirs.home, 'store'));
    const manifest = await store.get(first.workspaceSnapshot!);
    const skipped = (manifest.skipped ?? []).map((s) => s.path).sort();
    expect(skipped).toEqual(['.netrc', 'gcp.json', 'keys/deploy_key']);
    expect((manifest.skipped ?? []).every((s) => /credential file/.test(s.reason))).toBe(true);
    expect(first.credentialFiles?.filter((f) => f.action === 'left-out').map((f) => f.kind).sort()).toEqual(['.netrc', 'GCP service-account key', 'PEM private key']);
    expect(first.credentialFiles?.find((f) => f.path === 'ops/.pgpass')).toBeUndefined(); // untouched by the run: not even looked at
    expect((first.secretFiles ?? []).map((f) => f.path)).not.toContain('.netrc');
    expect(readFileSync(join(dirs.home, 'left-out', first.rolloutId, '.netrc'), 'utf8')).toContain(NETRC_PW);
  });

  it('leaves them out on the change path too', async () => {
    expect(second.outcome).toBe('completed');
    expect(second.workspaceSnapshotMode?.kind).toBe('changes');
    const savedAt = join(dirs.home, 'left-out', second.rolloutId, 'second.pem');
    expect(second.credentialFiles).toEqual([{ path: 'second.pem', kind: 'PEM private key', action: 'left-out', savedAt }]);
    // Not lost: the user's copy is on the host, readable only by them.
    expect(readFileSync(savedAt, 'utf8')).toContain(SECOND_BODY);
    expect(statSync(savedAt).mode & 0o777).toBe(0o600);
  });

  it('stores no byte of them in any blob, but keeps the user\'s own file and the code that quotes a key', () => {
    const blobs = blobsText(dirs.home);
    expect(blobs).toContain('notes.txt');
    const found = Object.entries({ GCP_BODY, PEM_BODY, NETRC_PW, SECOND_BODY }).filter(([, v]) => blobs.includes(v)).map(([k]) => k);
    expect(found).toEqual([]);
    expect(blobs).toContain(CODE_BODY);
    expect(blobs).toContain(USER_PW);
    expect(blobs).toContain(DEP_BODY);
    expect(first.credentialFiles?.find((f) => f.path.startsWith('node_modules/'))).toBeUndefined();
  });
});
