import { createHash } from 'node:crypto';
import { readFile, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../config/version.js';
import { pushAll } from '../config/arrays.js';

/** Repository of the sandbox image; the tag is the content hash. */
export const SANDBOX_IMAGE_REPO = 'mnemara-sandbox';

/**
 * The uid and gid the sandbox user gets: the host user's, so files copied out keep a sensible owner,
 * except that a root host user maps to 1000 (the sandbox user is never root). Same rule as scripts/setup.sh.
 */
export function sandboxUserIds(): { uid: number; gid: number } {
  const uid = process.getuid?.() ?? 1000;
  const gid = process.getgid?.() ?? 1000;
  return uid === 0 ? { uid: 1000, gid: 1000 } : { uid, gid: gid === 0 ? 1000 : gid };
}

/**
 * The tag of the sandbox image for this checkout: `mnemara-sandbox:<12 hex>`, a sha256 over Dockerfile.sandbox,
 * every file under sandbox-image/ (path, executable bit, content, in C-locale path order) and the user ids.
 * scripts/setup.sh computes the same hash in bash (`image_tag`); test/sandbox/image-tag.test.ts keeps them equal.
 * Throws when Dockerfile.sandbox cannot be read.
 */
export async function sandboxImageTag(root: string = PACKAGE_ROOT): Promise<string> {
  const outer = createHash('sha256');
  const entry = (name: string, executable: boolean, content: Buffer) => {
    const inner = createHash('sha256').update(content).digest('hex');
    outer.update(`${name}\n${executable ? 'x' : '-'}\n${inner}\n`);
  };
  entry('Dockerfile.sandbox', false, await readFile(join(root, 'Dockerfile.sandbox')));
  for (const rel of await listFiles(join(root, 'sandbox-image'), 'sandbox-image')) {
    const abs = join(root, rel);
    const info = await stat(abs);
    entry(rel, (info.mode & 0o100) !== 0, await readFile(abs));
  }
  const { uid, gid } = sandboxUserIds();
  outer.update(`uid=${uid}\ngid=${gid}\n`);
  return `${SANDBOX_IMAGE_REPO}:${outer.digest('hex').slice(0, 12)}`;
}

/** Regular files under `dir`, as `prefix/...` paths, sorted by byte order (like `LC_ALL=C sort`). */
async function listFiles(dir: string, prefix: string): Promise<string[]> {
  const out: string[] = [];
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return out;
    throw err;
  }
  for (const e of entries) {
    const rel = `${prefix}/${e.name}`;
    if (e.isDirectory()) pushAll(out, await listFiles(join(dir, e.name), rel));
    else if (e.isFile()) out.push(rel);
  }
  return out.sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
}
