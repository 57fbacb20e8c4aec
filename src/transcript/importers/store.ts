import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open, rm, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { redact } from '../../memory/redact.js';
import { serializeRecord } from '../serialize.js';
import { TRANSCRIPT_FORMAT_VERSION, TranscriptRecordSchema, type Outcome, type TranscriptRecord } from '../schema.js';
import { EndWatch } from './ended.js';
import { SPLIT, emptyStats, type Draft, type ImportContext, type ImportSource, type ImportStats, type Importer, type RolloutMeta } from './types.js';

/** One rollout an import produced: written to `file` (a temporary file in the target directory). */
export interface ImportedRollout {
  rolloutId: string;
  file: string;
  /** sha256 (hex) of the file's bytes. */
  sha256: string;
  /** Records in the file, `session_meta` and `session_end` included. */
  records: number;
  task: string;
  outcome: Outcome;
}

export interface StoreOptions {
  /** Applied to every record before it is written (the memory module's redaction). */
  transform?: (record: TranscriptRecord) => TranscriptRecord;
  /** Called every `progressEvery` source records with the count so far. */
  onRecords?: (count: number) => void;
  /** Counts to add to (the same object the source counts its repairs into); default a fresh one. */
  stats?: ImportStats;
}

const SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
/**
 * An id that becomes a file name (`sessions/<id>.jsonl`, in every later snapshot and its tree index) and a
 * rollout id: plain, and holding no secret (a session id that is a token gets a digest id instead).
 */
const usableId = (id: string): boolean => SAFE_ID.test(id) && redact(id) === id;
const FLUSH_BYTES = 1024 * 1024;
const zeroUsage = () => ({ inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheCreationTokens: 0 });

/** Short hex digest. */
export function digest(text: string | Buffer, chars = 16): string {
  return createHash('sha256').update(text).digest('hex').slice(0, chars);
}

/**
 * Runs `importer` over `src` and writes each rollout it yields as a transcript (`schema.ts`:
 * `session_meta`, the body in order, `session_end`) to a temporary file in `dir`, streaming: the body goes
 * to disk as it comes and is copied behind its `session_meta` at the end (whose task, model and times are
 * known only then), so memory stays bounded by the largest record. Records failing their schema are kept
 * as `unknown` records, never dropped. The caller renames or removes the files.
 * Rollout ids: the format's id when it is a safe file name (else its digest), or `<format>-<digest>` of the
 * content the importer names as seed (default the file's first 4 KiB): learning a file again gives the same id.
 */
export async function storeImport(importer: Importer, src: ImportSource, dir: string, options: StoreOptions = {}): Promise<{ rollouts: ImportedRollout[]; stats: ImportStats }> {
  const stats = options.stats ?? emptyStats();
  const rollouts: ImportedRollout[] = [];
  const usedIds = new Set<string>();
  const head = await firstBytes(src.path, 4096);
  let current = await Current.open(dir, src.mtime);
  const ctx: ImportContext = {
    meta: current.meta,
    stats,
    unknown: (sourceType, raw, sourceLine, ts) => {
      stats.unknown[sourceType] = (stats.unknown[sourceType] ?? 0) + 1;
      return { type: 'unknown', sourceType, raw, ...(sourceLine !== undefined ? { sourceLine } : {}), ...(ts ? { ts } : {}) };
    },
    verbatim: (sourceType, raw, sourceLine, ts) => {
      stats.verbatim[sourceType] = (stats.verbatim[sourceType] ?? 0) + 1;
      return { type: 'unknown', sourceType, raw, ...(sourceLine !== undefined ? { sourceLine } : {}), ...(ts ? { ts } : {}) };
    },
    damaged: (d) => {
      const kind = d.reason.replace(/:.*$/, '').replace(/\d+/g, 'N');
      stats.damaged[kind] = (stats.damaged[kind] ?? 0) + 1;
      stats.damagedBytes += d.bytes;
      return { type: 'damaged', bytes: d.bytes, reason: d.reason, ...(d.line ? { sourceLine: d.line } : {}), ...(d.fragment !== undefined ? { fragment: d.fragment } : {}) };
    },
  };
  const finish = async (): Promise<void> => {
    if (current.count === 0 && !current.meta.task) {
      await current.discard();
      return;
    }
    const seed = current.meta.idSeed ?? head.toString('latin1');
    let id = current.meta.id ? (usableId(current.meta.id) ? current.meta.id : `${importer.format}-${digest(current.meta.id)}`) : `${importer.format}-${digest(seed)}`;
    for (let n = 2; usedIds.has(id); n += 1) id = `${id.replace(/-\d+$/, '')}-${n}`;
    usedIds.add(id);
    const out = await current.close(id, importer.format, options.transform);
    stats.records += out.records;
    rollouts.push(out);
  };
  try {
    for await (const ev of importer.read(src, ctx)) {
      if (ev === SPLIT) {
        await finish();
        current = await Current.open(dir, src.mtime);
        ctx.meta = current.meta;
        continue;
      }
      stats.sourceRecords += 1;
      if (options.onRecords && stats.sourceRecords % 10_000 === 0) options.onRecords(stats.sourceRecords);
      await current.add(ev, options.transform);
    }
    await finish();
  } catch (err) {
    await current.discard();
    for (const r of rollouts) await rm(r.file, { force: true });
    throw err;
  }
  return { rollouts, stats };
}

/** The rollout being written: its meta, its body file and what the body showed. */
class Current {
  meta: RolloutMeta = { usage: zeroUsage(), versions: {} };
  empty = true;
  private buf: string[] = [];
  private held = 0;
  count = 0;
  private firstTs: string | undefined;
  private lastTs: string | undefined;
  private firstUser: string | undefined;
  private turns = 0;
  private cutAtEnd = false;
  private readonly ended = new EndWatch();

  private constructor(
    private readonly dir: string,
    private readonly bodyPath: string,
    private readonly fh: FileHandle,
    private readonly fallbackTs: string,
  ) {}

  static async open(dir: string, fallbackTs: string): Promise<Current> {
    const bodyPath = join(dir, `.import-${randomBytes(6).toString('hex')}.body`);
    return new Current(dir, bodyPath, await open(bodyPath, 'w', 0o600), fallbackTs);
  }

  async add(draft: Draft, transform?: (r: TranscriptRecord) => TranscriptRecord): Promise<void> {
    const ts = draft.ts ?? this.lastTs ?? this.meta.startedAt ?? this.fallbackTs;
    if (draft.ts) {
      this.firstTs ??= draft.ts;
      this.lastTs = draft.ts;
    }
    let record = { ...draft, v: TRANSCRIPT_FORMAT_VERSION, ts } as TranscriptRecord;
    if (record.type === 'message' || record.type === 'tool_call' || record.type === 'tool_result') {
      this.turns = Math.max(this.turns, record.turn);
      this.empty = false;
      if (record.type === 'message' && record.role === 'user') this.firstUser ??= record.text;
      this.cutAtEnd = false;
      this.ended.see(record);
    } else if (record.type === 'damaged') this.cutAtEnd = /^cut /.test(record.reason);
    const checked = TranscriptRecordSchema.safeParse(record);
    record = checked.success ? checked.data : ({ type: 'unknown', v: TRANSCRIPT_FORMAT_VERSION, ts, sourceType: `invalid:${draft.type}`, raw: draft } as TranscriptRecord);
    await this.write(serializeRecord(transform ? transform(record) : record));
    this.count += 1;
  }

  private async write(line: string): Promise<void> {
    this.buf.push(line);
    this.held += line.length;
    if (this.held >= FLUSH_BYTES) await this.flush(this.fh);
  }

  private async flush(fh: FileHandle): Promise<void> {
    if (this.buf.length === 0) return;
    const text = this.buf.join('');
    this.buf = [];
    this.held = 0;
    await fh.write(text);
  }

  async close(rolloutId: string, format: Importer['format'], transform?: (r: TranscriptRecord) => TranscriptRecord): Promise<ImportedRollout> {
    await this.flush(this.fh);
    await this.fh.close();
    const m = this.meta;
    const v = TRANSCRIPT_FORMAT_VERSION;
    const start = m.startedAt ?? this.firstTs ?? this.fallbackTs;
    const end = m.endedAt ?? this.lastTs ?? start;
    const task = m.task ?? this.firstUser ?? '';
    // A format that records no outcome shows an interruption only by its own marker (the importer sets it)
    // or by a file cut mid-record. Ending on a tool result is no evidence: an aider chat ends on the `/test`
    // that checked the edit, and a chat another one follows in the same file was plainly left, not cut.
    // A run whose agent ends saying it did not get the task done, after a failure, is no `completed` run (`EndWatch`).
    const outcome: Outcome = this.ended.outcome(m.outcome, this.cutAtEnd);
    const metaRecord: TranscriptRecord = {
      type: 'session_meta', v, ts: start, rolloutId, conversationId: m.conversationId ?? rolloutId, task,
      model: m.model ?? 'unknown', ...(m.system ? { system: m.system } : {}), ...(m.memoryBlock ? { memoryBlock: m.memoryBlock } : {}),
      source: m.source ?? format, versions: m.versions,
    };
    const endRecord: TranscriptRecord = {
      type: 'session_end', v, ts: end, outcome, turns: this.turns, usage: m.usage,
      wallMs: Math.max(0, Date.parse(end) - Date.parse(start)) || 0, ...(m.error ? { error: m.error } : {}),
    };
    const file = join(this.dir, `.import-${randomBytes(6).toString('hex')}.jsonl`);
    const hash = createHash('sha256');
    const out = await open(file, 'w', 0o600);
    try {
      const put = async (s: string) => {
        hash.update(s);
        await out.write(s);
      };
      await put(serializeRecord(transform ? transform(metaRecord) : metaRecord));
      for await (const chunk of createReadStream(this.bodyPath, { highWaterMark: FLUSH_BYTES })) {
        hash.update(chunk as Buffer);
        await out.write(chunk as Buffer);
      }
      await put(serializeRecord(transform ? transform(endRecord) : endRecord));
    } finally {
      await out.close();
      await rm(this.bodyPath, { force: true });
    }
    return { rolloutId, file, sha256: hash.digest('hex'), records: this.count + 2, task, outcome };
  }

  async discard(): Promise<void> {
    await this.fh.close().catch(() => undefined);
    await rm(this.bodyPath, { force: true });
  }
}

async function firstBytes(path: string, n: number): Promise<Buffer> {
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.alloc(n);
    const { bytesRead } = await fh.read(buf, 0, n, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}
