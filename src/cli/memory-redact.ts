/**
 * `mnemara memory redact`: a secret redaction missed, purged by its value from the memory the user names (a
 * lineage head's layout, saved as a new memory snapshot, or a workspace's `memories/` and `sessions/`) and from
 * the host's transcripts (twelfth trial F14). Older snapshots keep their layers: the result counts them, and the
 * printed way on squashes and prunes them.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MnemaraError } from '../config/errors.js';
import type { MnemaraConfig } from '../config/schema.js';
import { findValues, purgeValues, type PurgedFile } from '../memory/purge.js';
import { MIN_NAMED_CHARS, knowSecretValue } from '../memory/redact-known.js';
import { redactLayoutTree } from '../memory/redact-tree.js';
import { memoryStore, onMemoryDir, type MemorySource } from './memory-source.js';

/** What `memory redact` did. Paths are relative to the layout (or to `<home>/transcripts`). */
export interface NamedRedaction {
  /** Files of the memory layout that held a value, with how often. */
  layout: PurgedFile[];
  /** The new memory snapshot the head moved to (a lineage whose head held a value). */
  head?: string;
  /** Host transcripts (`<home>/transcripts/`) rewritten. */
  transcripts: PurgedFile[];
  /** Other snapshots of the lineage (older ones, branches' chains) whose layers may still hold a value. */
  olderSnapshots: number;
}

/** The marker a named value becomes (the same as for a credential mnemara knows itself). */
const MARKER = '[REDACTED:secret]';

/**
 * The values to purge: each non-empty line (trimmed). Throws `USAGE` when there is none, or one is shorter than
 * `MIN_NAMED_CHARS` (6) characters, which would hit ordinary words.
 */
export function namedValues(text: string): string[] {
  const values = [...new Set(text.split(/\r?\n/).map((l) => l.trim()).filter(Boolean))];
  if (values.length === 0) {
    throw new MnemaraError('USAGE', 'no value to redact was given', {
      hint: "Pipe it in (one per line), so it stays out of your shell history: printf '%s\\n' 'VALUE' | mnemara memory redact --lineage NAME",
    });
  }
  const short = values.find((v) => v.length < MIN_NAMED_CHARS);
  if (short !== undefined) {
    throw new MnemaraError('USAGE', `a value to redact must be at least ${MIN_NAMED_CHARS} characters long; one is ${short.length}`, {
      hint: 'A shorter value would replace ordinary words everywhere; give the whole secret.',
    });
  }
  return values;
}

/**
 * Replaces every value by `[REDACTED:secret]` in the memory of `source` and in `<home>/transcripts`. A lineage's
 * head is changed only when its layout held a value (a new memory snapshot, the head moved by compare-and-swap:
 * `HEAD_CONFLICT` when another session moved it meanwhile, nothing changed then). Throws what the store and the
 * filesystem throw.
 */
export async function redactNamedValues(source: MemorySource, config: MnemaraConfig, values: string[]): Promise<NamedRedaction> {
  for (const v of values) knowSecretValue(v, MIN_NAMED_CHARS);
  const { memoriesDir, sessionsDir } = config.memory.layout;
  const folders = [memoriesDir, sessionsDir];
  const result: NamedRedaction = { layout: [], transcripts: [], olderSnapshots: 0 };
  if (source.kind === 'workspace') {
    result.layout = await findValues(source.dir, folders, values);
    if (result.layout.length) await redactLayoutTree(source.dir, folders);
  } else {
    const store = await memoryStore(config);
    // Looked for first, in both folders (`onMemoryDir` reads only memories/ unless it saves): a head that does not
    // hold the value gets no new snapshot.
    const tmp = await mkdtemp(join(tmpdir(), 'mnemara-redact-'));
    try {
      await store.restoreToDirectory(source.snapshot, tmp, { paths: folders });
      result.layout = await findValues(tmp, folders, values);
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
    if (result.layout.length) result.head = (await onMemoryDir(source, config, async () => undefined, {})).snapshot;
    const all = await store.list({ lineage: source.lineage });
    result.olderSnapshots = all.filter((m) => m.id !== result.head).length;
  }
  result.transcripts = await purgeValues(join(config.home, 'transcripts'), values, MARKER);
  return result;
}
