/**
 * A token inside a binary file the run wrote was never found (round 17's secrets trial): the token grep skipped
 * binary files (`grep -I`), so a SQLite database or a pickle holding a token's text went into the workspace
 * snapshot unreported. Now such a file is read like any other; a binary file with no token (random bytes, a
 * build output) is not flagged. Local sandbox: the in-sandbox pass is the same shell script on both.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LocalSandbox } from '../../src/sandbox/local/local-sandbox.js';
import { setAside } from '../../src/session/left-out.js';
import { leaveOutSecretFiles } from '../../src/session/secret-files.js';

const TOKEN = 'ghp_FAKEinBinary0a1B2c3D4e5F6g7H8i9J0kLmNo';

/** A SQLite-like page: the header, NULs and record bytes around the token's text, as a table row stores it. */
function databaseWith(text: string): Buffer {
  return Buffer.concat([Buffer.from('SQLite format 3\0'), Buffer.alloc(84), randomBytes(300), Buffer.from([0, 0, 0x1d, 0x17]), Buffer.from(text), Buffer.alloc(2048)]);
}

describe('a token inside a binary file the run wrote', () => {
  let sb: LocalSandbox;
  const home = mkdtempSync(join(tmpdir(), 'mnemara-binary-home-'));
  afterAll(async () => {
    await sb?.close();
    rmSync(home, { recursive: true, force: true });
  });

  it('is found and the file left out; binary files without one stay', async () => {
    sb = await LocalSandbox.create({ sessionId: 'secret-binary' });
    const since = Number((await sb.exec('date +%s')).stdout.trim()) - 1;
    writeFileSync(join(sb.workspaceDir, 'app.db'), databaseWith(TOKEN));
    writeFileSync(join(sb.workspaceDir, 'cache.bin'), randomBytes(512 * 1024));
    writeFileSync(join(sb.workspaceDir, 'empty.db'), databaseWith('no token here'));
    const found = await leaveOutSecretFiles(sb, since, {
      wasThere: () => false,
      keep: false,
      leaveOut: (rel, savedAs) => setAside(sb, home, 'r1', rel, savedAs),
      skipDirs: [],
      skip: new Set(),
    });
    expect(found.map((f) => [f.path, f.kinds, f.action])).toEqual([['app.db', ['github_token'], 'left-out']]);
    expect(existsSync(join(sb.workspaceDir, 'app.db'))).toBe(false);
    expect(existsSync(join(sb.workspaceDir, 'cache.bin'))).toBe(true);
    expect(existsSync(join(sb.workspaceDir, 'empty.db'))).toBe(true);
  }, 60_000);
});
