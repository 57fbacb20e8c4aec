import { TRANSCRIPT_FORMAT_VERSION } from '../schema.js';
import { importAnthropicMessages } from './anthropic-messages.js';
import { obj, type Draft, type ImportContext, type ImportEvent, type ImportSource, type Importer, type Probe } from './types.js';

/**
 * The Anthropic Messages form (`{system, messages, id?, task?, outcome?, model?}`, mnemara's labelled fixtures;
 * `test/fixtures/transcripts/README.md`), mapped by `importAnthropicMessages`; blocks it has no rule for
 * (thinking, images, documents) are kept verbatim and counted.
 */
function detect(probe: Probe): boolean {
  const doc = probe.kind === 'json' ? obj(probe.doc) : undefined;
  const first = Array.isArray(doc?.messages) ? obj(doc.messages[0]) : undefined;
  return !!first && (first.role === 'user' || first.role === 'assistant') && 'content' in first;
}

async function* read(src: ImportSource, ctx: ImportContext): AsyncGenerator<ImportEvent> {
  const doc = await src.document();
  const records = importAnthropicMessages(doc, {
    startedAt: src.mtime,
    onUnknown: (sourceType, raw, message) => ({ ...ctx.unknown(sourceType, raw, message), v: TRANSCRIPT_FORMAT_VERSION, ts: src.mtime }) as never,
  });
  const d = obj(doc) ?? {};
  for (const r of records) {
    if (r.type === 'session_meta') {
      if (typeof d.id === 'string') ctx.meta.id = d.id;
      else ctx.meta.idSeed = JSON.stringify(d.messages).slice(0, 4096);
      Object.assign(ctx.meta, { task: r.task, model: r.model, versions: r.versions, ...(r.system ? { system: r.system } : {}), ...(r.memoryBlock ? { memoryBlock: r.memoryBlock } : {}) });
    } else if (r.type === 'session_end') {
      ctx.meta.outcome = r.outcome;
      // What ended a partial run, when the transcript cannot tell (issue 12): kept, not dropped on the way.
      if (r.error) ctx.meta.error = r.error;
    }
    else {
      const { v: _v, ...draft } = r;
      yield draft as Draft;
    }
  }
}

export const anthropicMessagesImporter: Importer = { format: 'anthropic-messages', title: 'Anthropic Messages JSON', detect, read };
