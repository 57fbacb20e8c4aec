import { MnemaraError } from '../config/errors.js';
import { decodeName, displayName } from './names.js';

/**
 * What a restore says when the file system refuses a write (the archive itself was read and checked fine): never
 * "corrupt", which sent users to `lineage reset`. `err` is returned unchanged unless it is a Node system error;
 * `staging` is the directory the restore wrote into (stripped from the path shown). ENAMETOOLONG is
 * `INVALID_INPUT` (exit 2: the target's place decides it); no space, no permission and the rest `RESTORE_FAILED`
 * (exit 3), each saying what to do. The target is left as it was either way.
 */
export function writeFailure(err: unknown, target: string, staging: string): unknown {
  if (!(err instanceof Error) || err instanceof MnemaraError) return err;
  const e = err as NodeJS.ErrnoException;
  if (!e.code || !e.syscall) return err;
  const raw = e.path === undefined ? '' : typeof e.path === 'string' ? e.path : decodeName(Buffer.from(e.path as unknown as Uint8Array));
  const inside = raw.startsWith(`${staging}/`) ? raw.slice(staging.length + 1) : raw;
  const shown = inside ? ` (${displayName(inside.length > 200 ? `${inside.slice(0, 200)}…` : inside)})` : '';
  const untouched = `${target} was left as it was; the snapshot is fine (mnemara snapshot verify says so).`;
  if (e.code === 'ENAMETOOLONG') {
    return new MnemaraError('INVALID_INPUT', `cannot restore into ${target}: a path is too long for the file system there (ENAMETOOLONG)${shown}`, {
      hint: `${untouched} Linux takes at most 255 bytes per name and 4,096 per path: restore into a directory with a short path (e.g. /tmp/r), or only the parts you need with --path.`,
      cause: err,
    });
  }
  const what =
    e.code === 'ENOSPC' || e.code === 'EDQUOT' ? ['no space left on the device', 'Free some space (or restore elsewhere) and run it again.'] :
    e.code === 'EACCES' || e.code === 'EPERM' || e.code === 'EROFS' ? ['no permission to write there', 'Restore into a directory you can write to.'] :
    [e.message, 'Check the target directory and run it again.'];
  return new MnemaraError('RESTORE_FAILED', `cannot restore into ${target}: ${what[0]} (${e.code}, ${e.syscall})${shown}`, {
    hint: `${untouched} ${what[1]}`,
    cause: err,
  });
}
