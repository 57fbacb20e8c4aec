import { MnemaraError } from '../config/errors.js';
import { SNAPSHOT_ID_RE } from '../snapshot/id.js';

/** What `snapshotRef` needs of a store: its heads and branches (directory and S3 stores both have them). */
interface Refs {
  root: string;
  getHead(lineage: string): Promise<string | null>;
  getBranch(name: string): Promise<string | null>;
}

/**
 * The snapshot id a command-line reference names: a snapshot id as it is, a branch (`LINEAGE@<rollout-id>`, as
 * `recover` and the run summary print them) or a lineage (its head). The run summary names work kept off the head
 * by its branch, so every snapshot command must take that name (new-user trial: `snapshot restore kill@…` said
 * "not found"). Throws NOT_FOUND (exit 2) naming what was tried and where names are listed.
 */
export async function snapshotRef(store: Refs, ref: string): Promise<string> {
  if (SNAPSHOT_ID_RE.test(ref)) return ref;
  const id = ref.includes('@') ? await store.getBranch(ref) : await store.getHead(ref);
  if (id) return id;
  throw new MnemaraError('NOT_FOUND', `${ref} is no snapshot id, ${ref.includes('@') ? 'branch' : 'lineage'} of store ${store.root}`, {
    hint: '`mnemara snapshot list` shows snapshot ids; `mnemara lineage list` shows lineages and their branches.',
  });
}

/**
 * The lineage a `--from` reference names, when it names one: `LINEAGE` (its head) or `LINEAGE@<rollout-id>` (a
 * branch of it); `undefined` for a snapshot id. `run --from` works on that lineage unless `--lineage` is given
 * (new-user trial: `run --from LINEAGE@…` ran on the directory's default lineage and moved its head instead).
 */
export function lineageOfRef(ref: string): string | undefined {
  if (SNAPSHOT_ID_RE.test(ref)) return undefined;
  const at = ref.lastIndexOf('@');
  return at > 0 ? ref.slice(0, at) : ref;
}
