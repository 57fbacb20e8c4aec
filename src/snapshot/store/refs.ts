import { mkdir, readFile, readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { MnemaraError } from '../../config/errors.js';
import { HeadConflictError } from '../errors.js';
import { writeFileAtomic } from '../fs-atomic.js';
import { isValidLineage, SNAPSHOT_ID_RE } from '../id.js';
import { withLock, type LockOptions } from './lock.js';

/**
 * Lineage heads as files `<store>/refs/lineages/<name>` holding one snapshot id (DESIGN.md). A head is
 * replaced atomically (temp + fsync + rename) and only under `<name>.lock`, which makes `advance` a
 * compare-and-swap across processes on one machine.
 */
export class LineageRefs {
  constructor(
    private readonly dir: string,
    private readonly lockOptions: LockOptions = {},
  ) {}

  private pathOf(lineage: string): string {
    if (!isValidLineage(lineage)) {
      throw new MnemaraError('INVALID_INPUT', `invalid lineage name ${JSON.stringify(lineage)}`, {
        hint: 'Use /-separated names of letters, digits, ".", "_" and "-" (e.g. ci/main), not starting with "." or ending in .lock.',
      });
    }
    return join(this.dir, ...lineage.split('/'));
  }

  /** The head id, `null` when the lineage has none; throws `INVALID_INPUT` for a bad name, `STORE_CORRUPT` for a bad ref. */
  async get(lineage: string): Promise<string | null> {
    let text: string;
    try {
      text = await readFile(this.pathOf(lineage), 'utf8');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR') return null;
      throw err;
    }
    const id = text.trim();
    if (!SNAPSHOT_ID_RE.test(id)) {
      throw new MnemaraError('STORE_CORRUPT', `lineage ${lineage} ref holds ${JSON.stringify(id.slice(0, 80))}, not a snapshot id`, {
        hint: `Move the head to a good snapshot with \`mnemara lineage reset ${lineage} SNAPSHOT\` (\`mnemara snapshot list --lineage ${lineage}\` lists them), or delete ${this.pathOf(lineage)}.`,
      });
    }
    return id;
  }

  /** Moves `lineage` from `expected` to `next`; throws `HeadConflictError` with the current head otherwise. */
  async advance(lineage: string, expected: string | null, next: string): Promise<void> {
    const path = this.pathOf(lineage);
    await mkdir(dirname(path), { recursive: true });
    await withLock(
      `${path}.lock`,
      async () => {
        const current = await this.get(lineage);
        if (current !== expected) throw new HeadConflictError(lineage, expected, current);
        await writeFileAtomic(path, `${next}\n`);
      },
      this.lockOptions,
    );
  }

  /** Every lineage with a readable head: name → snapshot id. */
  async all(): Promise<Record<string, string>> {
    const out: Record<string, string> = {};
    const visit = async (rel: string[]): Promise<void> => {
      const entries = await readdir(join(this.dir, ...rel), { withFileTypes: true }).catch(() => []);
      for (const e of entries) {
        if (e.name.startsWith('.') || e.name.endsWith('.lock') || e.name.endsWith('.stale')) continue;
        if (e.isDirectory()) await visit([...rel, e.name]);
        else if (e.isFile()) {
          const name = [...rel, e.name].join('/');
          if (!isValidLineage(name)) continue;
          const head = await this.get(name).catch(() => null);
          if (head) out[name] = head;
        }
      }
    };
    await visit([]);
    return out;
  }
}
