import { accessSync, constants, existsSync } from 'node:fs';
import { dirname, isAbsolute, relative } from 'node:path';
import { MnemaraError } from './errors.js';

/** errno codes that mean "this process may not write there". */
const DENIED = new Set(['EACCES', 'EPERM', 'EROFS']);
/** Calls that create or write: an ENOENT from one of them under a read-only parent is a refusal in disguise. */
const CREATING = new Set(['mkdir', 'open', 'mkdtemp', 'rename', 'copyfile', 'symlink', 'link']);

/** The nearest directory of `path` (itself included) that exists. */
function existingAncestor(path: string): string {
  let dir = path;
  while (!existsSync(dir) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

function writable(dir: string): boolean {
  try {
    accessSync(dir, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * One clear error, no stack trace, for a write the host refused (trial 23 F17: a read-only `MNEMARA_HOME` printed
 * a Node stack trace of `mkdir`): a Node fs error anywhere in `err`'s cause chain with EACCES, EPERM or EROFS, or
 * an ENOENT of a creating call whose nearest existing parent is not writable (Node's recursive `mkdir` on a
 * read-only mount says ENOENT). Names the path and, when it is under `home`, that MNEMARA_HOME must be writable.
 * Returns `MnemaraError('NOT_WRITABLE')` (exit 3), or `null` when `err` is no such refusal.
 */
export function notWritableError(err: unknown, home: string): MnemaraError | null {
  for (let e = err, depth = 0; e && depth < 8; e = (e as { cause?: unknown }).cause, depth++) {
    const { code, path, syscall } = e as { code?: unknown; path?: unknown; syscall?: unknown };
    if (typeof code !== 'string' || typeof path !== 'string' || !isAbsolute(path)) continue;
    const parent = existingAncestor(dirname(path));
    const refused = DENIED.has(code) || (code === 'ENOENT' && typeof syscall === 'string' && CREATING.has(syscall) && !writable(parent));
    if (!refused) continue;
    const inHome = !relative(home, path).startsWith('..') && !isAbsolute(relative(home, path));
    const why = code === 'ENOENT' ? `${parent} is not writable` : `${code}${code === 'EROFS' ? ', a read-only filesystem' : ', permission denied'}`;
    const hint = inHome
      ? `MNEMARA_HOME (${home}) must be a writable directory: fix its permissions or mount, or point MNEMARA_HOME at one (e.g. \`export MNEMARA_HOME=$HOME/.mnemara\`). Nothing was changed.`
      : `Make ${parent} writable, or use another directory (\`--store DIR\` for the snapshot store, \`-w DIR\` for a workspace). Nothing was changed.`;
    return new MnemaraError('NOT_WRITABLE', `cannot write ${path} (${why})`, { hint, cause: err });
  }
  return null;
}
