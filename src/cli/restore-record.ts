import { writeRestoreMarker } from '../snapshot/restore-marker.js';
import { writeErr } from './output.js';

/**
 * Records that `dir` now holds snapshot `id` (the merge base of later hand edits, `restore-marker.ts`). The tree is
 * restored whatever happens to the record: a read-only home failed `snapshot restore` after writing every file,
 * saying "Nothing was changed" (trial 25 N6). Returns the error code when the record could not be written (and,
 * with `warn`, says so on stderr), else undefined. Never throws.
 */
export async function recordRestore(home: string, dir: string, id: string, warn: boolean): Promise<string | undefined> {
  const failed = await writeRestoreMarker(home, dir, id).then(
    () => undefined,
    (err: NodeJS.ErrnoException) => `${err.code ?? err.message}`,
  );
  if (failed && warn) {
    writeErr(`warning: restored, but which snapshot ${dir} holds could not be recorded in ${home} (${failed}): a later \`mnemara snapshot create ${dir} --kind memory\` will not know what your hand edits started from\n`);
  }
  return failed;
}
