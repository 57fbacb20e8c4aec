import { open, readFile, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { MnemaraError } from '../../config/errors.js';
import { decodeJsonl, mendDeep } from '../decode.js';
import { readRawLines } from '../lines.js';
import type { ImportSource, ImportStats, Probe } from './types.js';

/** JSON-document formats (SWE-agent, mini-swe-agent, OpenHands, Messages) are parsed whole: refuse larger files (bytes). */
export const MAX_DOCUMENT_BYTES = 256 * 1024 * 1024;
/** Items of a JSONL file the detector looks at. */
const PROBE_ITEMS = 20;

/**
 * The file behind an import, decoded on demand (see `ImportSource`). Repairs (lone surrogates, invalid
 * UTF-8, glued records) are counted into `stats` as items are read.
 * @throws MnemaraError `NOT_FOUND` (no such file), `INVALID_INPUT` (not a regular file).
 */
export async function openSource(path: string, stats: ImportStats): Promise<ImportSource & { size: number }> {
  let st;
  try {
    st = await stat(path);
  } catch (err) {
    throw new MnemaraError('NOT_FOUND', `transcript ${path} does not exist`, { hint: 'Check the path.', cause: err });
  }
  if (!st.isFile()) throw new MnemaraError('INVALID_INPUT', `${path} is not a regular file`, { hint: 'Pass transcript files or directories holding them.' });
  return {
    path,
    size: st.size,
    mtime: st.mtime.toISOString(),
    async *lines() {
      for await (const d of decodeJsonl(path)) {
        if ('value' in d) {
          stats.surrogates += d.surrogates;
          if (d.invalidUtf8) stats.invalidUtf8 += 1;
          if (d.recovered) stats.recovered += 1;
        }
        yield d;
      }
    },
    async document() {
      if (st.size > MAX_DOCUMENT_BYTES) {
        throw new MnemaraError('INVALID_INPUT', `${path} is a ${st.size}-byte JSON document, over the ${MAX_DOCUMENT_BYTES}-byte cap for formats read whole`, {
          hint: 'JSON-document trajectories are parsed whole; split the run, or trim its largest outputs. JSONL formats have no such cap.',
        });
      }
      const text = (await readFile(path, 'utf8')).replace(/^\uFEFF/, '').replace(/\0+/g, '');
      let surrogates = 0;
      const doc = mendDeep(JSON.parse(text), () => (surrogates += 1));
      stats.surrogates += surrogates;
      return doc;
    },
    async *textLines() {
      for await (const raw of readRawLines(path)) {
        if ('oversizedBytes' in raw) yield { line: raw.line, text: `[line of ${raw.oversizedBytes} bytes over the cap, not kept]` };
        else yield { line: raw.line, text: raw.bytes.toString('utf8').replace(/^\uFEFF/, '').replace(/\0+/g, ''), ...(raw.lastWithoutNewline ? { cut: true } : {}) };
      }
    },
    async sibling(name: string) {
      const p = join(dirname(path), name.replace('{base}', basename(path).replace(/\.[^.]+$/, '')));
      try {
        const s = await stat(p);
        return s.isFile() && s.size < 1024 * 1024 ? await readFile(p, 'utf8') : undefined;
      } catch {
        return undefined;
      }
    },
  };
}

/**
 * How a file looks, for detection by content: the first items of a JSONL file (damaged, blank, BOM- or
 * NUL-prefixed lines passed over), a whole JSON document (pretty-printed or one line), or the head of a text file.
 */
export async function probeFile(path: string, size: number): Promise<Probe & { head: string }> {
  const head = await headText(path, 64 * 1024);
  const values: unknown[] = [];
  let damaged = 0;
  let items = 0;
  for await (const d of decodeJsonl(path, { maxLineBytes: 64 * 1024 * 1024 })) {
    items += 1;
    if ('value' in d) values.push(d.value);
    else damaged += 1;
    if (values.length >= PROBE_ITEMS || items >= PROBE_ITEMS * 3) break;
  }
  const docLike = /^[\s\0]*[[{]/.test(head);
  // One value in the whole file (pretty-printed JSON fails line by line; one-line JSON is one item).
  let jsonError: string | undefined;
  if (docLike && size <= MAX_DOCUMENT_BYTES && (values.length <= 1 || damaged > values.length)) {
    try {
      const doc = JSON.parse((await readFile(path, 'utf8')).replace(/^\uFEFF/, '').replace(/\0+/g, ''));
      return { kind: 'json', doc, head };
    } catch (err) {
      // not one document: JSONL with damage, or text (or a document cut short: said in a refusal)
      jsonError = (err as Error).message;
    }
  }
  if (values.some((v) => typeof v === 'object' && v !== null)) return { kind: 'jsonl', values, head };
  return { kind: 'text', head, ...(jsonError ? { jsonError } : {}) };
}

async function headText(path: string, n: number): Promise<string> {
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.alloc(n);
    const { bytesRead } = await fh.read(buf, 0, n, 0);
    return buf.subarray(0, bytesRead).toString('utf8').replace(/^\uFEFF/, '');
  } finally {
    await fh.close();
  }
}

/**
 * Whether a file in a format written both ways (a JSON array or document, or JSONL) is one JSON document or
 * JSONL: a document's first non-blank line is `[`, a lone `{`, or anything that is not JSON by itself.
 */
export async function documentOrLines(src: ImportSource): Promise<'document' | 'lines'> {
  for await (const { text } of src.textLines()) {
    const t = text.trim();
    if (!t) continue;
    if (t.startsWith('[')) return 'document';
    try {
      JSON.parse(t);
      return 'lines';
    } catch {
      return 'document';
    }
  }
  return 'lines';
}
