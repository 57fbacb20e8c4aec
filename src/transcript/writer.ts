import { mkdir, open, readFile, type FileHandle } from 'node:fs/promises';
import { dirname, posix } from 'node:path';
import { MnemaraError } from '../config/errors.js';
import type { Sandbox } from '../sandbox/types.js';
import { serializeRecord } from './serialize.js';
import { TRANSCRIPT_FORMAT_VERSION, TranscriptRecordSchema, type TranscriptRecord } from './schema.js';

/** A record as the loop hands it over: `v` and `ts` are filled in by the writer. */
export type NewRecord = TranscriptRecord extends infer R ? (R extends TranscriptRecord ? Omit<R, 'v' | 'ts'> & { ts?: string } : never) : never;

/** Applied to every string of every record before it is written (the session passes the memory module's redaction). */
export type Redact = (s: string) => string;

/**
 * Appends transcript records (`schema.ts`) to a JSONL file on the HOST, one line each, as the run goes.
 * Every record is redacted, validated with its zod schema, written and fsynced before `append` resolves
 * (measured: 0.4–0.5 ms per record on these machines, against ~60 ms for one tool round trip in Docker), so a
 * crash of the container or of this process loses nothing already appended. Appends are serialized.
 */
export class TranscriptWriter {
  private tail: Promise<void> = Promise.resolve();
  private closed = false;
  private lines = 0;

  private constructor(
    readonly path: string,
    private readonly fh: FileHandle,
    private readonly redact: Redact,
  ) {}

  /**
   * Opens (creates, mode 0600, parents made) `path` for appending.
   * @throws MnemaraError `TRANSCRIPT_WRITE` when the file cannot be opened.
   */
  static async open(path: string, options: { redact?: Redact } = {}): Promise<TranscriptWriter> {
    try {
      await mkdir(dirname(path), { recursive: true });
      const fh = await open(path, 'a+', 0o600);
      await repairCutTail(fh);
      return new TranscriptWriter(path, fh, options.redact ?? ((s) => s));
    } catch (cause) {
      throw new MnemaraError('TRANSCRIPT_WRITE', `Cannot open the transcript ${path} for writing`, {
        hint: 'Check that the directory exists and is writable (MNEMARA_HOME)',
        cause,
      });
    }
  }

  /** Number of lines appended so far. */
  get lineCount(): number {
    return this.lines;
  }

  /**
   * Redacts, validates and appends one record, then fsyncs.
   * @throws MnemaraError `TRANSCRIPT_INVALID` for a record its schema rejects (a bug), `TRANSCRIPT_WRITE` on I/O failure.
   */
  append(record: NewRecord): Promise<void> {
    const next = this.tail.then(() => this.write(record));
    this.tail = next.catch(() => undefined);
    return next;
  }

  private async write(record: NewRecord): Promise<void> {
    if (this.closed) throw new MnemaraError('TRANSCRIPT_WRITE', `The transcript ${this.path} is already closed`);
    const full = redactDeep({ ...record, v: TRANSCRIPT_FORMAT_VERSION, ts: record.ts ?? new Date().toISOString() }, this.redact);
    const parsed = TranscriptRecordSchema.safeParse(full);
    if (!parsed.success) {
      throw new MnemaraError('TRANSCRIPT_INVALID', `A ${String(record.type)} record does not match its schema: ${parsed.error.message}`);
    }
    try {
      await this.fh.write(serializeRecord(parsed.data));
      await this.fh.sync();
      this.lines += 1;
    } catch (cause) {
      throw new MnemaraError('TRANSCRIPT_WRITE', `Cannot append to the transcript ${this.path}`, {
        hint: 'Check free disk space and permissions',
        cause,
      });
    }
  }

  /** Where the file ends once pending appends are written: for `truncateTo`. Bytes and lines. */
  async mark(): Promise<{ bytes: number; lines: number }> {
    await this.tail;
    return { bytes: (await this.fh.stat()).size, lines: this.lines };
  }

  /**
   * Drops what was appended after `mark` (from `mark()`), so records can be written again, changed (a command
   * whose output showed it printed a secret in pieces). Later appends go to the new end (the file is in append mode).
   * @throws MnemaraError `TRANSCRIPT_WRITE` on I/O failure.
   */
  truncateTo(mark: { bytes: number; lines: number }): Promise<void> {
    const next = this.tail.then(async () => {
      try {
        await this.fh.truncate(mark.bytes);
        await this.fh.sync();
        this.lines = mark.lines;
      } catch (cause) {
        throw new MnemaraError('TRANSCRIPT_WRITE', `Cannot rewrite the end of the transcript ${this.path}`, { hint: 'Check free disk space and permissions', cause });
      }
    });
    this.tail = next.catch(() => undefined);
    return next;
  }

  /** Waits for pending appends and closes the file. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    await this.tail;
    this.closed = true;
    await this.fh.close();
  }
}

/**
 * A file whose last line was cut (a crash mid-append) gets the `\n` it lacks, so the next record starts a
 * line of its own instead of being glued to the fragment and lost with it; readers report the fragment.
 */
async function repairCutTail(fh: FileHandle): Promise<void> {
  const { size } = await fh.stat();
  if (size === 0) return;
  const last = Buffer.alloc(1);
  await fh.read(last, 0, 1, size - 1);
  if (last[0] !== 0x0a) await fh.write('\n');
}

/** Every string (not object keys) of a JSON-like value passed through `redact`. */
export function redactDeep<T>(value: T, redact: Redact): T {
  if (typeof value === 'string') return redact(value) as T;
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, redact)) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactDeep(v, redact)])) as T;
  }
  return value;
}

/**
 * Copies the host transcript into the workspace at `<sessionsDir>/<rolloutId>.jsonl` through the sandbox
 * (DESIGN.md: the transcript lives in the memory layout), returning the sandbox path. The file is read
 * whole; transcripts are megabytes, not gigabytes.
 * @throws MnemaraError `TRANSCRIPT_PLACE` when it cannot be read or written.
 */
export async function placeTranscript(sandbox: Sandbox, hostPath: string, sessionsDir: string, rolloutId: string): Promise<string> {
  const target = posix.join(sandbox.workspaceDir, sessionsDir, `${rolloutId}.jsonl`);
  try {
    await sandbox.writeFile(target, await readFile(hostPath));
    return target;
  } catch (cause) {
    throw new MnemaraError('TRANSCRIPT_PLACE', `Cannot place the transcript into the workspace at ${target}`, {
      hint: `The transcript is kept on the host at ${hostPath}`,
      cause,
    });
  }
}
