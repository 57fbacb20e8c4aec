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
