/**
 * Archives the run wrote that hold a token (`tar czf backup.tgz .env`, `gzip -k`, a zip made with Python, an
 * xz stream) are left out of the workspace snapshot like any file holding one: compression hid the prefix from the
 * file-token scan's grep, which skips binary files anyway, so the token reached a workspace layer inside the
 * archive. An archive without a token, and one the user had before the run, stay. A zip bomb's member is read only
 * up to the scan's bound per member, and the token in the member after it is still found. Real Docker sandbox, the scripted Messages server as the model.
 */
import { gzipSync } from 'node:zlib';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSession, type SessionResult } from '../../src/session.js';
import { openStore } from '../../src/snapshot/index.js';
import { startMessagesServer, text, toolUse, turn, type MessagesServer } from '../support/messages-server.js';
import { scratch, testConfig } from './harness.js';

const GH = 'ghp_FAKEarchivedEnv0a1B2c3D4e5F6g7H8i9J0kL';
const ANT = 'sk-ant-api03-FAKEgzippedJson9Xv2Lm7Rt4Wz8Kp1Ns6';
const SLACK = 'xoxb-FAKE20261204-1234567890123-ZippedByPython';
const GL = 'glpat-FAKExzStream0a1B2c3D4e5F6';
const USER_GH = 'ghp_FAKEusersOwnArchive0a1B2c3D4e5F6g7H8i9';

// The image has gzip but neither xz nor bzip2 nor zip: Python makes the others, as an agent there would.
const PACK_PY = [
  'import lzma, tarfile, zipfile, io',
  "z = zipfile.ZipFile('release.zip', 'w', zipfile.ZIP_DEFLATED)",
  // A bomb first: 200 MB of zeros in one member; the scan reads each member only to its bound and goes on.
  "z.writestr('zeros.bin', bytes(200 * 1024 * 1024))",
  `z.writestr('conf/slack.json', '{"bot": "${SLACK}"}')`,
  'z.close()',
  `open('deploy.log.xz', 'wb').write(lzma.compress(b'token ${GL}\\n'))`,
  "t = tarfile.open('src.tar.bz2', 'w:bz2'); t.add('src'); t.close()",
].join('; ');

const run = [
  `mkdir -p pack && printf 'GITHUB_TOKEN=${GH}\\n' > pack/ci.env && tar czf backup.tgz pack && rm -r pack`,
  `printf '{"key": "${ANT}"}\\n' > creds.json && gzip creds.json`,
  "mkdir -p src && printf 'export const x = 1;\\n' > src/x.js",
  `python3 -c "${PACK_PY.replace(/"/g, '\\"')}"`,
].join(' && ');

let dirs: ReturnType<typeof scratch>;
let server: MessagesServer;
let result: SessionResult;

beforeAll(async () => {
  dirs = scratch('secret-archives');
  // The user's own archive with a token: theirs, never dropped.
  writeFileSync(join(dirs.workspace, 'old.gz'), gzipSync(Buffer.from(`GH_TOKEN=${USER_GH}\n`)));
  server = await startMessagesServer([turn(toolUse('bash', { command: run })), turn(text('Packed.'))]);
  result = await runSession({ workspace: dirs.workspace, task: 'Pack the release.', config: testConfig(dirs.home, server.url), lineage: 'archives' });
}, 300_000);
afterAll(async () => {
  await server?.close();
  dirs?.cleanup();
});

describe('archives the run wrote that hold a token', () => {
  it('are left out of the workspace snapshot with the token kinds named; the clean archive stays', async () => {
    expect(result.outcome).toBe('completed');
    const out = (result.secretFiles ?? []).filter((f) => f.action === 'left-out').map((f) => [f.path, f.kinds]);
    expect(out).toEqual([
      ['backup.tgz', ['github_token']],
      ['creds.json.gz', ['anthropic_key']],
      ['deploy.log.xz', ['gitlab_token']],
      ['release.zip', ['slack_token']],
    ]);
    const manifest = await (await openStore(join(dirs.home, 'store'))).get(result.workspaceSnapshot!);
    const skipped = (manifest.skipped ?? []).map((s) => s.path);
    expect(skipped).toEqual(expect.arrayContaining(['backup.tgz', 'creds.json.gz', 'deploy.log.xz', 'release.zip']));
    expect(skipped).not.toContain('src.tar.bz2');
  });

  it("does not read the user's archive the run never touched", () => {
    expect(result.secretFiles?.find((f) => f.path === 'old.gz')).toBeUndefined();
  });
});
