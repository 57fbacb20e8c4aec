import type { S3Client } from '@aws-sdk/client-s3';
import { MnemaraError } from '../../config/errors.js';
import { logger } from '../../config/logger.js';
import { HeadConflictError } from '../errors.js';
import { isValidBranch, isValidLineage, SNAPSHOT_ID_RE } from '../id.js';
import { isMaybeApplied, isPreconditionFailed, storeError } from './s3-client.js';
import type { S3Objects } from './s3-objects.js';
import { casSupported, describeQuirks, type S3Quirks } from './s3-probe.js';

const log = logger('snapshot');

/** Writes of one head that found it unchanged after an unknown outcome (5xx, timeout) before giving up. */
const MAX_UNDECIDED = 6;

/**
 * Named refs in an S3 store, one object per ref at `<prefix>/refs/<namespace>/<name>` holding a snapshot id and
 * a newline (the directory store's layout). `namespace` is `lineages` for lineage heads; other ref kinds
 * (`branches`) use the same class. Moves are compare-and-swap on that one object: `If-None-Match: *` to create,
 * `If-Match: <etag of what was read>` to move, single-object PUTs only (servers ignore conditions on multipart
 * completion, copy and delete). A write whose outcome is unknown (5xx, timeout) is decided by reading the ref again.
 */
export class S3Refs {
  constructor(
    private readonly objects: S3Objects,
    /** A client with SDK retries off: a retried conditional PUT would hide what happened to the first one. */
    private readonly writeClient: S3Client,
    readonly namespace: string,
    private readonly quirks: () => Promise<S3Quirks>,
  ) {}

  private isValid(name: string): boolean {
    return this.namespace === 'branches' ? isValidBranch(name) : isValidLineage(name);
  }

  private relOf(name: string): string {
    if (!this.isValid(name)) {
      throw new MnemaraError('INVALID_INPUT', `invalid ${this.kind} name ${JSON.stringify(name)}`, {
        hint: 'Use /-separated names of letters, digits, ".", "_" and "-" (e.g. ci/main), not starting with "." or ending in .lock.',
      });
    }
    return `refs/${this.namespace}/${name}`;
  }

  private get kind(): string {
    return this.namespace === 'lineages' ? 'lineage' : this.namespace.replace(/es$|s$/, '');
  }

  /** The ref's snapshot id and the ETag of the object read, or `null` when it has none. Throws `STORE_CORRUPT` for a bad ref. */
  async read(name: string): Promise<{ id: string; etag: string } | null> {
    const rel = this.relOf(name);
    const got = await this.objects.getText(rel);
    if (!got) return null;
    const id = got.text.trim();
    if (!SNAPSHOT_ID_RE.test(id)) {
      throw new MnemaraError('STORE_CORRUPT', `${this.kind} ${name} ref holds ${JSON.stringify(id.slice(0, 80))}, not a snapshot id`, {
        hint: `Fix or delete ${this.objects.url}/${rel}.`,
      });
    }
    return { id, etag: got.etag };
  }

  async get(name: string): Promise<string | null> {
    return (await this.read(name))?.id ?? null;
  }

  /**
   * Moves `name` from `expected` (`null` = no ref yet) to `next`. Throws `HeadConflictError` carrying the current
   * id when the ref is not `expected` (also when another writer won the race), `MnemaraError('STORE_UNSAFE')`
   * when the server cannot compare-and-swap (see `S3Quirks`), and `STORE_UNAVAILABLE` when the outcome stays unknown.
   */
  async advance(name: string, expected: string | null, next: string): Promise<void> {
    const rel = this.relOf(name);
    const q = await this.quirks();
    if (!casSupported(q)) {
      throw new MnemaraError('STORE_UNSAFE', `S3 store ${this.objects.url} cannot move heads safely: ${describeQuirks(q)}`, {
        hint: 'Use a server that honours If-None-Match and If-Match on PutObject (AWS S3, Ceph RGW, MinIO, R2), or a directory store.',
      });
    }
    const body = `${next}\n`;
    let undecided = 0;
    for (let attempt = 1; ; attempt++) {
      const cur = await this.read(name);
      const current = cur?.id ?? null;
      if (attempt > 1 && current === next) return; // our earlier write landed after all
      if (current !== expected) throw new HeadConflictError(name, expected, current);
      let lastErr: unknown;
      try {
        if (cur === null) {
          if ((await this.objects.putIfAbsentRaw(rel, body, undefined, this.writeClient)) === 'created') return;
          continue; // someone created it first: the next read says who
        }
        await this.objects.putIfMatchRaw(rel, body, q.ifMatch === 'quoted' ? `"${cur.etag}"` : cur.etag, this.writeClient);
        return;
      } catch (err) {
        if (!isPreconditionFailed(err) && !isMaybeApplied(err)) throw storeError(`moving ${rel}`, this.objects.url, err);
        lastErr = err;
      }
      // Unknown outcome or lost race: read again at once (a race's losers learn who won without waiting). Only
      // failures that left the ref unchanged (a server failing for another reason) wait, and they are bounded.
      const now = (await this.read(name))?.id ?? null;
      if (now === next) return;
      if (now !== expected) throw new HeadConflictError(name, expected, now);
      undecided += 1;
      log.debug({ ref: rel, err: (lastErr as Error).message, undecided }, 'conditional write failed and the ref is unchanged; retrying');
      if (undecided > MAX_UNDECIDED) throw storeError(`moving ${rel} (failed ${MAX_UNDECIDED} times, ref unchanged)`, this.objects.url, lastErr);
      if (isMaybeApplied(lastErr)) await new Promise((r) => setTimeout(r, 20 * 2 ** Math.min(undecided, 5) * (0.5 + Math.random())));
    }
  }

  /**
   * Deletes `name` when it still holds `expected`. S3 servers ignore conditions on DeleteObject (MACHINE-NOTES),
   * so this is read-compare-delete: a writer that moves the ref between the read and the delete loses its move.
   * Only branches are ever deleted, and only by a person's `mnemara lineage delete`; heads never are.
   * Throws `HeadConflictError` with the current id when the ref is not `expected`.
   */
  async remove(name: string, expected: string): Promise<void> {
    const rel = this.relOf(name);
    const current = await this.get(name);
    if (current !== expected) throw new HeadConflictError(name, expected, current);
    await this.objects.remove(rel);
  }

  /** Every ref with a readable value: name → snapshot id. */
  async all(): Promise<Record<string, string>> {
    const prefix = `refs/${this.namespace}/`;
    const names = (await this.objects.list(`refs/${this.namespace}`)).map((k) => k.slice(prefix.length)).filter((n) => this.isValid(n));
    const out: Record<string, string> = {};
    await forEachLimit(names, 8, async (n) => {
      const id = await this.get(n).catch(() => null);
      if (id) out[n] = id;
    });
    return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  }
}

/** Runs `fn` over `items` with at most `limit` at once. */
export async function forEachLimit<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let i = 0;
  const worker = async (): Promise<void> => {
    while (i < items.length) await fn(items[i++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
