/**
 * Trial 25 (high): from a lineage's second run, the run compares the checkout's `memories/MEMORY.md` with the
 * head's on the host; a committed link `memories/MEMORY.md -> /dev/zero` made that read run until the host ran out
 * of memory (18.6 GB, SIGTERM not honoured), and a link to a host file read that file. The checkout's file is
 * read only when it is a regular file within a bound: a link, a FIFO or a device gives no notice at once.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readRegularFile } from '../../src/config/regular-file.js';
import { hostMemoryNotice } from '../../src/session/host-memory.js';

const root = mkdtempSync(join(tmpdir(), 'mnemara-host-memory-links-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const layout = { memoriesDir: 'memories', sessionsDir: 'sessions' };
const head = join(root, 'head.md');
writeFileSync(head, '# Memory\n\n- the head\'s entry\n');

/** A checkout whose `memories/MEMORY.md` is made by `make`. */
function checkout(name: string, make: (file: string) => void): string {
  const ws = join(root, name);
  mkdirSync(join(ws, 'memories'), { recursive: true });
  make(join(ws, 'memories', 'MEMORY.md'));
  return ws;
}

describe("the checkout's MEMORY.md, compared with the head's", () => {
  it('a link to /dev/zero, a FIFO, a link to a host file and a device are not read', async () => {
    const secret = join(root, 'host-secret.md');
    writeFileSync(secret, 'host-only text\n');
    const trees = [
      checkout('zero', (f) => symlinkSync('/dev/zero', f)),
      checkout('fifo', (f) => execFileSync('mkfifo', [f])),
      checkout('hostfile', (f) => symlinkSync(secret, f)),
      checkout('device', (f) => symlinkSync('/dev/urandom', f)),
    ];
    for (const ws of trees) expect(await hostMemoryNotice(ws, layout, head, 'l', 's'), ws).toBeNull();
  }, 20_000);

  it('a regular file that differs still gives the notice', async () => {
    const ws = checkout('edited', (f) => writeFileSync(f, '# Memory\n\n- a hand edit\n'));
    expect(await hostMemoryNotice(ws, layout, head, 'l', 's')).toMatchObject({ kind: 'host-memory-ignored' });
  });
});

describe('readRegularFile', () => {
  it('reads a regular file within the bound, nothing else', async () => {
    const f = join(root, 'plain.txt');
    writeFileSync(f, 'abc');
    expect((await readRegularFile(f, 3))?.toString()).toBe('abc');
    expect(await readRegularFile(f, 2)).toBeNull();
    expect(await readRegularFile(join(root, 'missing'), 10)).toBeNull();
    expect(await readRegularFile(root, 10)).toBeNull();
    const link = join(root, 'plain-link');
    symlinkSync(f, link);
    expect(await readRegularFile(link, 10)).toBeNull();
  });
});
