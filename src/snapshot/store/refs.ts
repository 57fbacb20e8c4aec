import { lstat, mkdir, readFile, readdir, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { MnemaraError } from '../../config/errors.js';
import { HeadConflictError } from '../errors.js';
import { fsyncDir, writeFileAtomic } from '../fs-atomic.js';
import { isValidBranch, isValidLineage, SNAPSHOT_ID_RE } from '../id.js';
import { withLock, type LockOptions } from './lock.js';

/** Appended to a name's segments that are directories on disk; in no valid lineage or branch name. */
const DIR_MARK = '+';

/** A ref file's text, `null` when there is none at `path` (absent, or a directory or file in the way). */
async function readRef(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR') return null;
    throw err;
  }
}

/** Which refs a {@link LineageRefs} holds: lineage heads (`refs/lineages/`) or branch heads (`refs/branches/`). */
export type RefKind = 'lineage' | 'branch';

const NAME_HINT: Record<RefKind, string> = {
  lineage: 'Use /-separated names of letters, digits, ".", "_" and "-" (e.g. ci/main), not starting with "." or ending in .lock.',
  branch: 'A branch is named LINEAGE@NAME (e.g. ci/main@20261201T120000000Z-4f9c2a7e1b or ci/main@before-reset): a valid lineage, "@", then letters, digits, ".", "_" and "-".',
};

/**
 * Refs as files holding one snapshot id (DESIGN.md: `refs/lineages/<name>` and `refs/branches/<name>`), where
 * every `/`-separated segment but the last names a directory with `+` appended: `ci/main` is `ci+/main`. A name
 * may then be a prefix of another (`github.com/acme/mono` and `github.com/acme/mono/packages/app`, the default
 * lineages of a monorepo and one of its packages): `+` is in no valid segment, so a ref's file never collides
 * with another ref's directory (plain segment directories failed with ENOTDIR). Refs an older mnemara wrote as
 * `ci/main` are read in place and moved to the new layout on their next change. A ref is replaced atomically
 * (temp + fsync + rename) and only under `<file>.lock`, which makes `advance` and `remove` compare-and-swaps
 * across processes on one machine.
 */
export class LineageRefs {
  constructor(
    private readonly dir: string,
    private readonly lockOptions: LockOptions = {},
    private readonly kind: RefKind = 'lineage',
  ) {}

  private valid(name: string): boolean {
    return this.kind === 'lineage' ? isValidLineage(name) : isValidBranch(name);
  }

  private pathOf(name: string): string {
    if (!this.valid(name)) {
      throw new MnemaraError('INVALID_INPUT', `invalid ${this.kind} name ${JSON.stringify(name)}`, { hint: NAME_HINT[this.kind] });
    }
    const segments = name.split('/');
    return join(this.dir, ...segments.slice(0, -1).map((s) => `${s}${DIR_MARK}`), segments.at(-1)!);
  }

  /** Where mnemara 0.1 kept the ref: plain segment directories. */
  private legacyPathOf(name: string): string {
    return join(this.dir, ...name.split('/'));
  }

  /** The ref's snapshot id, `null` when absent; throws `INVALID_INPUT` for a bad name, `STORE_CORRUPT` for a bad ref. */
  async get(name: string): Promise<string | null> {
    const text = (await readRef(this.pathOf(name))) ?? (await readRef(this.legacyPathOf(name)));
    if (text === null) return null;
    const id = text.trim();
    if (!SNAPSHOT_ID_RE.test(id)) {
      throw new MnemaraError('STORE_CORRUPT', `${this.kind} ${name} ref holds ${JSON.stringify(id.slice(0, 80))}, not a snapshot id`, {
        hint: `Point it at a known snapshot with \`mnemara lineage reset ${name.split('@')[0]} SNAPSHOT\` (see \`mnemara snapshot list\`), or delete ${this.pathOf(name)}.`,
      });
    }
    return id;
  }

  /** Moves `name` from `expected` to `next`; throws `HeadConflictError` with the current ref otherwise. */
  async advance(name: string, expected: string | null, next: string): Promise<void> {
    await this.swap(name, expected, async (path) => writeFileAtomic(path, `${next}\n`));
  }

  /** Removes `name` if it still points at `expected`; throws `HeadConflictError` otherwise. */
  async remove(name: string, expected: string): Promise<void> {
    await this.swap(name, expected, async (path) => {
      await rm(path, { force: true });
      await fsyncDir(dirname(path));
    });
  }

  /** After a change under the lock: the 0.1 copy of the ref, if any, would shadow nothing but confuse `all`. */
  private async dropLegacy(name: string): Promise<void> {
    const legacy = this.legacyPathOf(name);
    if (legacy === this.pathOf(name)) return;
    const stat = await lstat(legacy).catch(() => null);
    if (stat?.isFile()) {
      await rm(legacy, { force: true });
      await fsyncDir(dirname(legacy));
    }
  }

  private async swap(name: string, expected: string | null, write: (path: string) => Promise<void>): Promise<void> {
    const path = this.pathOf(name);
    await mkdir(dirname(path), { recursive: true });
    await withLock(
      `${path}.lock`,
      async () => {
        // A damaged ref counts as "some other value": only a caller that expects nothing may not replace it.
        const current = await this.get(name).catch((err: unknown) => {
          if ((err as MnemaraError).code === 'STORE_CORRUPT') return undefined;
          throw err;
        });
        if (current === undefined ? expected === null : current !== expected) throw new HeadConflictError(name, expected, current ?? null);
        await write(path);
        await this.dropLegacy(name);
      },
      this.lockOptions,
    );
  }

  /** Every ref with a readable value: name → snapshot id. */
  async all(): Promise<Record<string, string>> {
    const names = new Set<string>();
    // `dirs` are the directory names on disk, `segments` the name's: `x+` is segment `x`; a plain `x` is 0.1's.
    const visit = async (dirs: string[], segments: string[]): Promise<void> => {
      const entries = await readdir(join(this.dir, ...dirs), { withFileTypes: true }).catch(() => []);
      for (const e of entries) {
        if (e.name.startsWith('.') || e.name.endsWith('.lock') || e.name.endsWith('.stale') || e.name.endsWith('.tmp')) continue;
        if (e.isDirectory()) await visit([...dirs, e.name], [...segments, e.name.endsWith(DIR_MARK) ? e.name.slice(0, -1) : e.name]);
        else if (e.isFile()) {
          const name = [...segments, e.name].join('/');
          if (this.valid(name)) names.add(name);
        }
      }
    };
    await visit([], []);
    const out: Record<string, string> = {};
    for (const name of [...names].sort()) {
      const head = await this.get(name).catch(() => null);
      if (head) out[name] = head;
    }
    return out;
  }
}
