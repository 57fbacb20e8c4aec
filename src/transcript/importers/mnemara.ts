import { TranscriptRecordSchema } from '../schema.js';
import { obj, type Draft, type ImportContext, type ImportEvent, type ImportSource, type Importer, type Probe } from './types.js';

/**
 * mnemara's own transcripts (`sessions/<rollout-id>.jsonl`, `schema.ts`), learned from another workspace:
 * records are copied; `session_meta`/`session_end` become the rollout's meta; record types this version does
 * not know and records failing their schema are kept verbatim (`unknown`), damaged lines as stubs.
 */
function detect(probe: Probe): boolean {
  const values = probe.kind === 'jsonl' ? probe.values : probe.kind === 'json' ? [probe.doc] : [];
  return values.some((v) => obj(v)?.type === 'session_meta' && typeof obj(v)?.rolloutId === 'string' && obj(v)?.v !== undefined);
}

async function* read(src: ImportSource, ctx: ImportContext): AsyncGenerator<ImportEvent> {
  for await (const d of src.lines()) {
    if ('damage' in d) {
      yield ctx.damaged(d.damage);
      continue;
    }
    const parsed = TranscriptRecordSchema.safeParse(d.value);
    if (!parsed.success) {
      const type = obj(d.value)?.type;
      yield ctx.unknown(typeof type === 'string' ? (['session_meta', 'message', 'tool_call', 'tool_result', 'session_end'].includes(type) ? `invalid:${type}` : type) : 'untyped', d.value, d.line);
      continue;
    }
    const r = parsed.data;
    if (r.type === 'session_meta') {
      Object.assign(ctx.meta, {
        id: r.rolloutId, source: r.source, conversationId: r.conversationId, task: r.task, model: r.model, startedAt: r.ts, versions: r.versions,
        ...(r.system ? { system: r.system } : {}), ...(r.memoryBlock ? { memoryBlock: r.memoryBlock } : {}),
      });
    } else if (r.type === 'session_end') {
      Object.assign(ctx.meta, { outcome: r.outcome, usage: r.usage, endedAt: r.ts, ...(r.error ? { error: r.error } : {}) });
    } else {
      const { v: _v, ...draft } = r;
      yield draft as Draft;
    }
  }
}

export const mnemaraImporter: Importer = { format: 'mnemara', title: "mnemara's own transcript JSONL", detect, read };
