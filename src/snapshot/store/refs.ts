import { mkdir, readFile, readdir, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { MnemaraError } from '../../config/errors.js';
import { HeadConflictError } from '../errors.js';
import { fsyncDir, writeFileAtomic } from '../fs-atomic.js';
import { isValidBranch, isValidLineage, SNAPSHOT_ID_RE } from '../id.js';
import { withLock, type LockOptions } from './lock.js';

/** Which refs a {@link LineageRefs} holds: lineage heads (`refs/lineages/`) or branch heads (`refs/branches/`). */
export type RefKind = 'lineage' | 'branch';

const NAME_HINT: Record<RefKind, string> = {
  lineage: 'Use /-separated names of letters, digits, ".", "_" and "-" (e.g. ci/main), not starting with "." or ending in .lock.',
  branch: 'A branch is named LINEAGE@NAME (e.g. ci/main@20261201T120000000Z-4f9c2a7e1b or ci/main@before-reset): a valid lineage, "@", then letters, digits, ".", "_" and "-".',
};

/**
 * Refs as files `<dir>/<name>` holding one snapshot id (DESIGN.md: `refs/lineages/<name>` and
 * `refs/branches/<name>`). A ref is replaced atomically (temp + fsync + rename) and only under `<name>.lock`,
 * which makes `advance` and `remove` compare-and-swaps across processes on one machine.
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
    return join(this.dir, ...name.split('/'));
  }

  /** The ref's snapshot id, `null` when absent; throws `INVALID_INPUT` for a bad name, `STORE_CORRUPT` for a bad ref. */
  async get(name: string): Promise<string | null> {
    let text: string;
    try {
      text = await readFile(this.pathOf(name), 'utf8');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR') return null;
      throw err;
    }
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
      },
      this.lockOptions,
    );
  }

  /** Every ref with a readable value: name → snapshot id. */
  async all(): Promise<Record<string, string>> {
    const out: Record<string, string> = {};
    const visit = async (rel: string[]): Promise<void> => {
      const entries = await readdir(join(this.dir, ...rel), { withFileTypes: true }).catch(() => []);
      for (const e of entries) {
        if (e.name.startsWith('.') || e.name.endsWith('.lock') || e.name.endsWith('.stale')) continue;
        if (e.isDirectory()) await visit([...rel, e.name]);
        else if (e.isFile()) {
          const name = [...rel, e.name].join('/');
          if (!this.valid(name)) continue;
          const head = await this.get(name).catch(() => null);
          if (head) out[name] = head;
        }
      }
    };
    await visit([]);
    return out;
  }
}
