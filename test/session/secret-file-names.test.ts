/**
 * A token in the NAME of a file the run created (`notes/ghp_….txt`, whatever it holds) was kept silently (eighth
 * new-user trial, LOW): a name reaches the snapshot's tar headers and tree index. Now such a file is treated as one
 * that holds a token: left out and set aside when the run created it, kept and reported when it was the user's;
 * reported, listed and saved under its redacted name, so the token reaches no summary, manifest or host path.
 * Local sandbox: the in-sandbox pass is the same shell script on both; the real `setAside`.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LocalSandbox } from '../../src/sandbox/local/local-sandbox.js';
import { setAside } from '../../src/session/left-out.js';
import { leaveOutSecretFiles, secretFileMessage } from '../../src/session/secret-files.js';

// Joined to a word by `-`: the boundary once counted `-` and `_` as token characters (tenth trial, H1).
const RUN_NAME = 'leak-ghp_FAKEnameOnly0a1B2c3D4e5F6g7H8i9J0kLmN';
const USER_NAME = 'sk-ant-api03-FAKEuserNamed9Xv2Lm7Rt4Wz8Kp1Ns6';
const FOLDER_NAME = 'xoxb-FAKE123456-1234567890123-FolderNamedToken';

describe('a token in the name of a file the run wrote', () => {
  let sb: LocalSandbox;
  const home = mkdtempSync(join(tmpdir(), 'mnemara-names-home-'));
  afterAll(async () => {
    await sb?.close();
    rmSync(home, { recursive: true, force: true });
  });

  it('is left out under its redacted name when the run created it, kept and reported when it was the user\'s', async () => {
    sb = await LocalSandbox.create({ sessionId: 'secret-names' });
    const since = Number((await sb.exec('date +%s')).stdout.trim()) - 1;
    await sb.exec(`mkdir -p notes keys && echo 'remember to rotate' > notes/${RUN_NAME}.txt && echo 'user key notes' > keys/${USER_NAME}.md && echo plain > notes/todo.txt`);
    // A folder named with a token (round 17's secrets trial: never reported), two files under it: one report.
    await sb.exec(`mkdir -p "cache/${FOLDER_NAME}/sub" && echo a > "cache/${FOLDER_NAME}/a.txt" && echo b > "cache/${FOLDER_NAME}/sub/b.txt"`);
    const found = await leaveOutSecretFiles(sb, since, {
      wasThere: (rel) => rel.startsWith('keys/'),
      keep: false,
      leaveOut: (rel, savedAs) => setAside(sb, home, 'r1', rel, savedAs),
      skipDirs: [],
      skip: new Set(),
    });
    const saved = join(home, 'left-out', 'r1', 'notes', 'leak-[REDACTED:github_token].txt');
    expect(found).toEqual([
      { path: 'keys/[REDACTED:anthropic_key].md', kinds: ['anthropic_key'], action: 'kept', inName: true, why: 'it was in the workspace before the run (your file: it is never dropped)' },
      { path: 'notes/leak-[REDACTED:github_token].txt', kinds: ['github_token'], action: 'left-out', inName: true, savedAt: saved },
      { path: 'cache/[REDACTED:slack_token]', kinds: ['slack_token'], action: 'kept', inName: true, why: expect.stringMatching(/^a folder's name holds the token/) },
    ]);
    expect(readFileSync(saved, 'utf8')).toBe('remember to rotate\n');
    expect(existsSync(join(sb.workspaceDir, 'notes', `${RUN_NAME}.txt`))).toBe(false);
    expect(existsSync(join(sb.workspaceDir, 'notes', 'todo.txt'))).toBe(true);
    const messages = found.map(secretFileMessage).join('\n');
    expect(messages).toContain('keys/[REDACTED:anthropic_key].md has a token in its name (anthropic_key; shown redacted) and is in the workspace snapshot');
    expect(messages).toContain('rename the file');
    expect(messages).toContain('cache/[REDACTED:slack_token] is a folder with a token in its name (slack_token; shown redacted) and is in the workspace snapshot');
    expect(messages).toContain('rename the folder');
    expect(existsSync(join(sb.workspaceDir, 'cache', FOLDER_NAME, 'sub', 'b.txt'))).toBe(true);
    expect(messages).not.toContain('FAKE');
  }, 60_000);
});
