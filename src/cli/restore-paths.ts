import { readFileSync } from 'node:fs';
import { MnemaraError } from '../config/errors.js';
import { resolveLimits } from '../snapshot/limits.js';
import { decodeName, displayName } from '../snapshot/names.js';
import { guardPath } from '../snapshot/restore-guard.js';
import type { AnyStore } from '../snapshot/index.js';

/**
 * The bytes of a command-line argument as the shell passed them. Node decodes argv as UTF-8 and turns bytes
 * that are not UTF-8 into U+FFFD, losing them; `/proc/self/cmdline` (Linux) still has them. Returns the escaped
 * form (`names.ts`) of the one raw argument that decodes to `value`, or undefined (no /proc, none or several).
 */
export function rawArgument(value: string): string | undefined {
  let raw: Buffer;
  try {
    raw = readFileSync('/proc/self/cmdline');
  } catch {
    return undefined;
  }
  const found = new Set<string>();
  let start = 0;
  for (let i = 0; i <= raw.length; i++) {
    if (i < raw.length && raw[i] !== 0) continue;
    const arg = raw.subarray(start, i);
    start = i + 1;
    if (arg.toString('utf8') === value) found.add(decodeName(arg));
  }
  return found.size === 1 ? [...found][0] : undefined;
}

/** `\xNN` (NN 80–ff), as mnemara prints a byte that is not UTF-8 (`printable`), back to that byte (escaped form). */
export function unescapePrinted(path: string): string {
  return path.replace(/\\x([89a-fA-F][0-9a-fA-F])/g, (_m, hex: string) => String.fromCharCode(0xdc00 + parseInt(hex, 16)));
}

/**
 * Maps each `--path` to the name the snapshot holds: the argument as given; its raw bytes when the shell passed a
 * name that is not UTF-8; or, when the literal name is absent, the name as mnemara prints it (`a\xfe.md`) read
 * back to its bytes (a literal backslash name such as `dev-disk-by\x2dlabel.device` is tried first, so it still
 * means itself). A path the guard refuses is passed on unchanged (the store says what `--path` accepts).
 * Throws `MnemaraError('INVALID_INPUT')` (exit 2) for a path that names nothing in the snapshot: restoring
 * nothing and exiting 0 looked like success.
 */
export async function resolveRestorePaths(store: AnyStore, id: string, paths: string[]): Promise<string[]> {
  const tree = await store.tree(id);
  const limits = resolveLimits();
  const has = (p: string): boolean => {
    try {
      const segments = guardPath(p, limits);
      return segments.length > 0 && tree.get(segments) !== undefined;
    } catch {
      return false;
    }
  };
  const valid = (p: string): boolean => {
    try {
      return guardPath(p, limits).length > 0;
    } catch {
      return false;
    }
  };
  return paths.map((p) => {
    if (!valid(p)) return p;
    const candidates = [p.includes('\uFFFD') ? rawArgument(p) : undefined, p, unescapePrinted(p)].filter((c): c is string => c !== undefined);
    const hit = candidates.find(has);
    if (hit !== undefined) return hit;
    const top = [...(tree.get([])?.children?.keys() ?? [])].sort().slice(0, 8).map(displayName);
    throw new MnemaraError('INVALID_INPUT', `--path ${displayName(p)} names nothing in snapshot ${id}`, {
      hint: `Paths are relative to the snapshot's root${top.length ? ` (its top level: ${top.join(', ')}${(tree.get([])?.children?.size ?? 0) > top.length ? ', …' : ''})` : ''}; see what it holds with mnemara snapshot show ${id}. A name that is not UTF-8 may be given as mnemara prints it (\\xNN).`,
    });
  });
}
