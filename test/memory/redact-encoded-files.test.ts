/**
 * Issue 10 trial (HIGH): a token in a notes file saved as UTF-16, in a `.gz` of a log, or in a `.zip`/`.tar` of
 * notes under `memories/` stayed in every snapshot: the checks read raw bytes as Latin-1. UTF-16 is now redacted
 * in its own encoding; compressed files and archives are looked into (bounded) and left out when they hold a
 * secret or cannot be read to the end. Real gzip, zip and tar bytes, built here; fake tokens.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { deflateRawSync, gzipSync } from 'node:zlib';
import { c as tarCreate } from 'tar';
import { describe, expect, it } from 'vitest';
import { encodedFileVerdict, redactUtf16, utf16Of } from '../../src/memory/redact-encoded-files.js';
import { redactForeignMemoryFiles } from '../../src/memory/redact-files.js';
import { redactLayoutTree } from '../../src/memory/redact-tree.js';
import { memoryPaths } from '../../src/memory/layout.js';
import { tempDir } from '../snapshot/helpers.js';
import { DockerSandbox } from '../../src/sandbox/index.js';
import { redactLayoutInSandbox } from '../../src/session/redact-notes.js';

const TOKEN = `ghp_${'Zx8cVb7nMq6wEr5tYu4iOp3aSd2fGh1jKl0Q'}`;
const SECRET_TEXT = `deploy notes\nGITHUB_TOKEN=${TOKEN}\nrun make deploy\n`;
const CLEAN_TEXT = 'deploy notes\nrun make deploy after the tests pass\nlist: 1 2 3\n';

const be = (s: string): Buffer => Buffer.from(s, 'utf16le').swap16();
const le = (s: string): Buffer => Buffer.from(s, 'utf16le');

/** A zip of `files` (APPNOTE.TXT 4.3), each stored or deflated; `flags` on every entry (1: encrypted). */
function zip(files: Array<[string, Buffer]>, method: 0 | 8 = 8, flags = 0): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const [name, data] of files) {
    const packed = method === 8 ? deflateRawSync(data) : data;
    const n = Buffer.from(name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(flags, 6);
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(packed.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(n.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(flags, 8);
    central.writeUInt16LE(method, 10);
    central.writeUInt32LE(packed.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(n.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, n, packed);
    centrals.push(central, n);
    offset += 30 + n.length + packed.length;
  }
  const cd = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(files.length, 8);
  end.writeUInt16LE(files.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}

/** A real tar (the `tar` package) of `files`. */
function tar(files: Array<[string, Buffer]>): Buffer {
  const dir = tempDir();
  for (const [name, data] of files) writeFileSync(join(dir, name), data);
  const out = join(tempDir(), 'a.tar');
  tarCreate({ sync: true, file: out, cwd: dir, portable: true }, files.map(([n]) => n));
  return readFileSync(out);
}

describe('UTF-16 text is redacted in its own encoding', () => {
  const forms: Array<[string, Buffer, (s: string) => Buffer]> = [
    ['LE with a mark', Buffer.from([0xff, 0xfe]), le],
    ['BE with a mark', Buffer.from([0xfe, 0xff]), be],
    ['LE without a mark', Buffer.alloc(0), le],
    ['BE without a mark', Buffer.alloc(0), be],
  ];
  for (const [label, mark, enc] of forms) {
    it(label, () => {
      const data = Buffer.concat([mark, enc(SECRET_TEXT)]);
      const out = redactUtf16('notes.txt', data);
      expect(out).not.toBeNull();
      expect(out!.subarray(0, mark.length).equals(mark)).toBe(true);
      const text = (enc === le ? out!.subarray(mark.length) : Buffer.from(out!.subarray(mark.length)).swap16()).toString('utf16le');
      expect(text).not.toContain(TOKEN);
      expect(text).toContain('GITHUB_TOKEN=[REDACTED:');
      expect(text).toContain('run make deploy');
      const clean = Buffer.concat([mark, enc(CLEAN_TEXT)]);
      expect(redactUtf16('notes.txt', clean)).toBe(clean);
    });
  }

  it('binary data and CJK UTF-8 are not taken for UTF-16', () => {
    expect(utf16Of(randomBytes(4096))).toBeNull();
    expect(utf16Of(Buffer.from('数据库已经迁移 '.repeat(50)))).toBeNull();
  });
});

describe('compressed files and archives are looked into', () => {
  const secret = Buffer.from(SECRET_TEXT);
  const clean = Buffer.from(CLEAN_TEXT);
  it('gzip', () => {
    expect(encodedFileVerdict(gzipSync(secret))).toBe('secret');
    expect(encodedFileVerdict(gzipSync(clean))).toBe('clean');
    expect(encodedFileVerdict(gzipSync(le(SECRET_TEXT)))).toBe('secret');
  });
  it('zip, deflated and stored', () => {
    expect(encodedFileVerdict(zip([['a.md', clean], ['b.md', secret]]))).toBe('secret');
    expect(encodedFileVerdict(zip([['a.md', clean], ['b.md', clean]]))).toBe('clean');
    expect(encodedFileVerdict(zip([['a.md', gzipSync(secret)]], 0))).toBe('secret');
  });
  it('tar, with a gzip inside', () => {
    expect(encodedFileVerdict(tar([['notes.md.gz', gzipSync(secret)], ['x.bin', randomBytes(700)]]))).toBe('secret');
    expect(encodedFileVerdict(gzipSync(tar([['notes.md', clean]])))).toBe('clean');
  });
  it('nested: a tar.gz of a zip of a gzip', () => {
    expect(encodedFileVerdict(gzipSync(tar([['inner.zip', zip([['n.gz', gzipSync(secret)]])]])))).toBe('secret');
  });
  it('what cannot be read to the end is unreadable: truncated, encrypted, a bomb past the bound, too deep', () => {
    const gz = gzipSync(Buffer.concat([clean, randomBytes(4096)]));
    expect(encodedFileVerdict(gz.subarray(0, gz.length - 100))).toBe('unreadable');
    expect(encodedFileVerdict(zip([['a.md', clean]], 8, 1))).toBe('unreadable');
    expect(encodedFileVerdict(gzipSync(Buffer.alloc(80 * 1024 * 1024)))).toBe('unreadable');
    let deep = gzipSync(clean);
    for (let i = 0; i < 5; i++) deep = gzipSync(deep);
    expect(encodedFileVerdict(deep)).toBe('unreadable');
  });
  it('plain binary files are clean', () => {
    // Seeded, so that every run reads the same bytes: random ones held `PW:x3…` or `pat:¸!º…` read as text in
    // about one run of 30, which the `pw` and `pat` words took for secrets until control characters ruled them out.
    let x = 0x9e3779b9;
    const seeded = (n: number): Buffer => Buffer.from(Array.from({ length: n }, () => ((x ^= x << 13), (x ^= x >>> 17), (x ^= x << 5), x & 0xff)));
    for (let i = 0; i < 40; i++) expect(encodedFileVerdict(seeded(64 * 1024)), `seeded buffer ${i}`).toBe('clean');
    expect(encodedFileVerdict(randomBytes(64 * 1024))).toBe('clean');
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]), randomBytes(2048)]);
    expect(encodedFileVerdict(png)).toBe('clean');
  });
});

describe('the memory layout passes', () => {
  function layout(): string {
    const root = tempDir();
    mkdirSync(join(root, 'memories'));
    writeFileSync(join(root, 'memories/notes-utf16.txt'), Buffer.concat([Buffer.from([0xff, 0xfe]), le(SECRET_TEXT)]));
    writeFileSync(join(root, 'memories/build.log.gz'), gzipSync(secret()));
    writeFileSync(join(root, 'memories/clean.log.gz'), gzipSync(Buffer.from(CLEAN_TEXT)));
    return root;
  }
  const secret = (): Buffer => Buffer.from(SECRET_TEXT);

  it('the pipeline redacts UTF-16 in place and removes a gzip that holds a secret, keeping a clean one', async () => {
    const root = layout();
    const changed = await redactForeignMemoryFiles(memoryPaths(root));
    expect(changed).toContain('notes-utf16.txt');
    const notes = readFileSync(join(root, 'memories/notes-utf16.txt'));
    expect(notes.subarray(0, 2).equals(Buffer.from([0xff, 0xfe]))).toBe(true);
    expect(notes.subarray(2).toString('utf16le')).not.toContain(TOKEN);
    expect(existsSync(join(root, 'memories/build.log.gz'))).toBe(false);
    expect(existsSync(join(root, 'memories/clean.log.gz'))).toBe(true);
  });

  it('snapshot create sets a gzip that holds a secret aside and redacts UTF-16', async () => {
    const root = layout();
    // As snapshot create names it (`<home>/left-out/snapshot-…`): its parent is made 0700, so never a shared folder.
    const aside = join(tempDir(), 'left-out', 'snapshot-test');
    const r = await redactLayoutTree(root, ['memories'], aside);
    expect(r.refused).toEqual(['memories/build.log.gz']);
    expect(existsSync(join(aside, 'memories/build.log.gz'))).toBe(true);
    expect(r.redacted.map((x) => x.path)).toContain('memories/notes-utf16.txt');
    expect(readFileSync(join(root, 'memories/notes-utf16.txt')).subarray(2).toString('utf16le')).not.toContain(TOKEN);
  });

  it('the pass inside the sandbox (real Docker) before the workspace snapshot does the same', async () => {
    const sandbox = await DockerSandbox.create({ sessionId: `encoded-${process.pid}` });
    try {
      await sandbox.writeFile('memories/notes-utf16.txt', Buffer.concat([Buffer.from([0xfe, 0xff]), be(SECRET_TEXT)]));
      await sandbox.writeFile('memories/build.log.gz', gzipSync(secret()));
      await sandbox.writeFile('memories/notes.zip', zip([['a.md', Buffer.from(CLEAN_TEXT)]]));
      const r = await redactLayoutInSandbox(sandbox, { memoriesDir: 'memories', sessionsDir: 'sessions' });
      expect(r.refused).toEqual(['memories/build.log.gz']);
      expect(r.redacted).toEqual(['memories/notes-utf16.txt']);
      const ls = await sandbox.exec(['ls', 'memories']);
      expect(ls.stdout.split('\n').filter(Boolean).sort()).toEqual(['notes-utf16.txt', 'notes.zip']);
      const hex = await sandbox.exec(['bash', '-c', 'od -An -tx1 memories/notes-utf16.txt | head -1']);
      expect(hex.stdout.trim().startsWith('fe ff 00 64')).toBe(true); // the mark and big-endian "d" kept
      const grep = await sandbox.exec(['bash', '-c', 'iconv -f UTF-16 -t UTF-8 memories/notes-utf16.txt | grep -c REDACTED']);
      expect(grep.stdout.trim()).toBe('1');
    } finally {
      await sandbox.close();
    }
  }, 120_000);

  it('setting aside under a shared folder leaves that folder as it was (it was made 0700)', async () => {
    const root = layout();
    const shared = tempDir();
    chmodSync(shared, 0o755);
    await redactLayoutTree(root, ['memories'], join(shared, 'aside'));
    expect(existsSync(join(shared, 'aside/memories/build.log.gz'))).toBe(true);
    expect(statSync(shared).mode & 0o777).toBe(0o755);
    expect(statSync(join(shared, 'aside')).mode & 0o777).toBe(0o700);
  });
});
