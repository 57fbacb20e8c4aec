import { createHash } from 'node:crypto';
import { lstatSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';

/** A temp dir removed after the current test. */
const made: string[] = [];
export function tempDir(prefix = 'mnemara-snap-'): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  made.push(d);
  return d;
}
afterEach(() => {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A byte-exact description of a tree: path → type, permission bits, content sha256 / link target. */
export function describeTree(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const visit = (rel: string): void => {
    for (const name of readdirSync(join(root, rel)).sort()) {
      const p = rel ? `${rel}/${name}` : name;
      const st = lstatSync(join(root, p));
      const mode = (st.mode & 0o7777).toString(8);
      if (st.isSymbolicLink()) out[p] = `link -> ${readlinkSync(join(root, p))}`;
      else if (st.isDirectory()) {
        out[p] = `dir ${mode}`;
        visit(p);
      } else if (!st.isFile()) out[p] = 'special';
      else out[p] = `file ${mode} ${createHash('sha256').update(readFileSync(join(root, p))).digest('hex').slice(0, 16)}`;
    }
  };
  visit('');
  return out;
}

/**
 * `describeTree` byte for byte: names are read as bytes (keys are latin1, so names that are not UTF-8 stay
 * distinct), link targets too; FIFOs, sockets and devices are left out (a snapshot skips them); unreadable
 * files are described by mode only when `process.getuid() !== 0`.
 */
export function describeTreeBytes(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const visit = (rel: Buffer): void => {
    const dir = Buffer.concat([Buffer.from(root), rel.length ? Buffer.from('/') : Buffer.alloc(0), rel]);
    for (const name of readdirSync(dir, { encoding: 'buffer' }).sort(Buffer.compare)) {
      const p = rel.length ? Buffer.concat([rel, Buffer.from('/'), name]) : name;
      const abs = Buffer.concat([Buffer.from(`${root}/`), p]);
      const st = lstatSync(abs);
      const key = p.toString('latin1');
      const mode = (st.mode & 0o7777).toString(8);
      if (st.isSymbolicLink()) out[key] = `link -> ${readlinkSync(abs, { encoding: 'buffer' }).toString('latin1')}`;
      else if (st.isDirectory()) {
        out[key] = `dir ${mode}`;
        visit(p);
      } else if (st.isFile()) {
        const content = process.getuid?.() === 0 || st.mode & 0o444 ? createHash('sha256').update(readFileSync(abs)).digest('hex').slice(0, 16) : '?';
        out[key] = `file ${mode} ${st.size} ${content}`;
      }
    }
  };
  visit(Buffer.alloc(0));
  return out;
}
