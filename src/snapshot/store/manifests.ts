import { mkdir, readFile, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../fs-atomic.js';
import { SnapshotCorruptError, SnapshotNotFoundError } from '../errors.js';
import { SNAPSHOT_ID_RE } from '../id.js';
import { ManifestSchema, type Manifest } from '../types.js';
import { logger } from '../../config/logger.js';

const log = logger('snapshot');

/**
 * Manifests at `<store>/snapshots/<id>/manifest.json`. A snapshot exists once its manifest file does:
 * it is written atomically (temp + fsync + rename) and only after all its blobs are on disk.
 */
export class ManifestStore {
  constructor(
    readonly dir: string,
    private readonly storeRoot: string,
  ) {}

  pathOf(id: string): string {
    return join(this.dir, id, 'manifest.json');
  }

  /** Validates and writes a manifest atomically (temp + fsync + rename); call only after its blobs are stored. */
  async write(manifest: Manifest): Promise<void> {
    const parsed = ManifestSchema.parse(manifest);
    await mkdir(join(this.dir, parsed.id), { recursive: true });
    await writeFileAtomic(this.pathOf(parsed.id), `${JSON.stringify(parsed, null, 2)}\n`);
  }

  /** Bytes of a snapshot's manifest file (0 when absent). */
  async size(id: string): Promise<number> {
    return (await stat(this.pathOf(id)).catch(() => null))?.size ?? 0;
  }

  /** Throws `SnapshotNotFoundError` when absent (or the id is malformed), `SnapshotCorruptError` when unparsable. */
  async get(id: string): Promise<Manifest> {
    if (!SNAPSHOT_ID_RE.test(id)) throw new SnapshotNotFoundError(id, this.storeRoot);
    let text: string;
    try {
      text = await readFile(this.pathOf(id), 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new SnapshotNotFoundError(id, this.storeRoot);
      throw err;
    }
    return parseManifest(id, text);
  }

  /** Ids of directories under `snapshots/` (complete or not), sorted (= creation order). */
  async ids(): Promise<string[]> {
    const names = await readdir(this.dir).catch(() => [] as string[]);
    return names.filter((n) => SNAPSHOT_ID_RE.test(n)).sort();
  }

  /** Every complete, readable manifest, oldest first; damaged ones are logged and left out (`verify` reports them). */
  async list(): Promise<Manifest[]> {
    const out: Manifest[] = [];
    for (const id of await this.ids()) {
      try {
        out.push(await this.get(id));
      } catch (err) {
        if (!(err instanceof SnapshotNotFoundError)) log.warn({ id, err: (err as Error).message }, 'skipping unreadable snapshot');
      }
    }
    return out;
  }

  /** Deletes a snapshot's directory (its blobs stay until `gc`/`prune` find them unused). */
  async remove(id: string): Promise<void> {
    if (!SNAPSHOT_ID_RE.test(id)) return;
    await rm(join(this.dir, id), { recursive: true, force: true });
  }
}

/**
 * A manifest's JSON text checked against `ManifestSchema` and its id. Throws `SnapshotCorruptError` when it is not
 * JSON, does not match the format, or names another snapshot. Shared by every store backend.
 */
export function parseManifest(id: string, text: string): Manifest {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new SnapshotCorruptError(id, 'manifest.json is not valid JSON', err);
  }
  const parsed = ManifestSchema.safeParse(json);
  if (!parsed.success) throw new SnapshotCorruptError(id, `manifest.json does not match the format: ${parsed.error.issues[0]?.message ?? ''}`);
  if (parsed.data.id !== id) throw new SnapshotCorruptError(id, `manifest.json names another snapshot (${parsed.data.id})`);
  return parsed.data;
}
