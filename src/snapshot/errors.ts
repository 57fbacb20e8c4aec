import { MnemaraError } from '../config/errors.js';

/** A lineage head moved since the caller read it; `current` is the head now (`null` = no head). */
export class HeadConflictError extends MnemaraError {
  readonly lineage: string;
  readonly expected: string | null;
  readonly current: string | null;

  constructor(lineage: string, expected: string | null, current: string | null) {
    super(
      'HEAD_CONFLICT',
      `lineage "${lineage}" head is ${current ?? '(none)'}, not the expected ${expected ?? '(none)'}`,
      { hint: `Another writer moved this head meanwhile; run again (mnemara retries for snapshot.headWaitMinutes), or move it yourself with \`mnemara lineage reset ${lineage} SNAPSHOT\` (\`mnemara lineage list\` shows heads and branches).` },
    );
    this.lineage = lineage;
    this.expected = expected;
    this.current = current;
  }
}

/** No complete snapshot with this id exists in the store. */
export class SnapshotNotFoundError extends MnemaraError {
  readonly id: string;

  constructor(id: string, storeRoot: string) {
    super('NOT_FOUND', `snapshot ${id} not found in store ${storeRoot}`, {
      hint: 'Run `mnemara snapshot list` to see the snapshots this store holds.',
    });
    this.id = id;
  }
}

/** What to do about a damaged lineage head (said by a failing run and by `snapshot verify`). */
export const DAMAGED_HEAD_HINT =
  'if it is a lineage head, move the head to an older good snapshot with `mnemara lineage reset LINEAGE SNAPSHOT` (`mnemara lineage show LINEAGE` lists its snapshots; the damaged head is kept as a branch)';

/** A snapshot's manifest or one of its blobs is damaged (digest mismatch, truncated, unparsable). */
export class SnapshotCorruptError extends MnemaraError {
  readonly id: string;

  constructor(id: string, detail: string, cause?: unknown) {
    super('SNAPSHOT_CORRUPT', `snapshot ${id} is corrupt: ${detail}`, {
      hint: `Run \`mnemara snapshot verify\` to find damaged snapshots; ${DAMAGED_HEAD_HINT}.`,
      cause,
    });
    this.id = id;
  }
}

/** An archive entry broke a restore rule (escape, forbidden type, cap exceeded). */
export class UnsafeArchiveError extends MnemaraError {
  readonly entry: string | undefined;
  /** What rule was broken, without the entry path (e.g. `path contains a ".." segment`). */
  readonly reason: string;

  constructor(message: string, entry?: string) {
    super('UNSAFE_ARCHIVE', entry === undefined ? message : `${message}: ${JSON.stringify(entry)}`, {
      hint: 'The archive was refused and nothing was written; check where it came from, or raise the restore limits if it is legitimately large.',
    });
    this.entry = entry;
    this.reason = message;
  }
}

/** A source file kept changing while it was packed, so no consistent copy could be taken. */
export class SourceChangedError extends MnemaraError {
  readonly path: string;

  constructor(path: string) {
    super('SOURCE_CHANGED', `file changed while it was being packed: ${path}`, {
      hint: 'Stop whatever is writing to the directory (or wait for it to finish) and create the snapshot again.',
    });
    this.path = path;
  }
}
