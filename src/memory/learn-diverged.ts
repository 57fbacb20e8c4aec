import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import type { ImportedRollout } from '../transcript/importers/store.js';
import { serializeRecord } from '../transcript/serialize.js';

/** The body lines of a stored transcript: every record between its `session_meta` and its `session_end`. */
function body(bytes: Buffer): Buffer[] {
  const lines: Buffer[] = [];
  let at = 0;
  while (at < bytes.length) {
    const nl = bytes.indexOf(0x0a, at);
    const end = nl < 0 ? bytes.length : nl;
    lines.push(bytes.subarray(at, end));
    at = end + 1;
  }
  return lines.slice(1, -1);
}

/**
 * Whether the imported transcript `newFile` continues the one stored at `oldFile` (both mnemara transcript JSONL,
 * `session_meta` first, `session_end` last): every body record of the old one is, in order, the start of the
 * new one's body. That is what "the same rollout, grown" means; two files that share a session id but not their
 * records (two Gemini chats saved under one `sessionId`, a copied Codex rollout edited by hand) do not, and storing
 * the second under the first's id would lose the first (new-user trial 28 F6).
 */
export async function continuesTranscript(oldFile: string, newFile: string): Promise<boolean> {
  const [a, b] = await Promise.all([readFile(oldFile), readFile(newFile)]);
  const [was, now] = [body(a), body(b)];
  return was.length <= now.length && was.every((line, i) => line.equals(now[i]!));
}

/**
 * `r` stored under another rollout id: its file's `session_meta` record rewritten with `rolloutId` (the rest
 * byte for byte) and its sha256 computed again. Used for a transcript whose session id is taken by another,
 * different transcript (`continuesTranscript` false). Throws the file's read/write errors.
 */
export async function withRolloutId(r: ImportedRollout, rolloutId: string): Promise<ImportedRollout> {
  const bytes = await readFile(r.file);
  const nl = bytes.indexOf(0x0a);
  const meta = JSON.parse(bytes.subarray(0, nl < 0 ? bytes.length : nl).toString('utf8')) as Record<string, unknown>;
  const out = Buffer.concat([Buffer.from(serializeRecord({ ...meta, rolloutId })), nl < 0 ? Buffer.alloc(0) : bytes.subarray(nl + 1)]);
  await writeFile(r.file, out);
  return { ...r, rolloutId, sha256: createHash('sha256').update(out).digest('hex') };
}
