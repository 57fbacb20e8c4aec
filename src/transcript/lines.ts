import { createReadStream } from 'node:fs';

/** One raw line of a JSONL file: its 1-based number, its bytes (without `\n`), or why it was not kept. */
export type RawLine =
  | { line: number; bytes: Buffer; lastWithoutNewline: boolean }
  | { line: number; oversizedBytes: number };

/** Default per-line cap (bytes). A longer line is skipped, never buffered whole. */
export const DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024;

/**
 * Splits a file into lines on `\n` bytes only (a U+2028/U+2029 inside a JSON string is not a line end),
 * streaming: memory is bounded by the longest line kept, capped at `maxLineBytes` (bytes). A line over
 * the cap is drained without being held and reported as `{ oversizedBytes }`. A trailing `\r` is dropped.
 * Throws the stream's error (e.g. ENOENT) as is.
 */
export async function* readRawLines(
  path: string,
  { maxLineBytes = DEFAULT_MAX_LINE_BYTES, highWaterMark = 1024 * 1024 }: { maxLineBytes?: number; highWaterMark?: number } = {},
): AsyncGenerator<RawLine> {
  let parts: Buffer[] = [];
  let held = 0;
  let dropped = 0; // bytes of the current line when it went over the cap (then nothing more is held)
  let line = 0;

  const finish = (lastWithoutNewline: boolean): RawLine => {
    line += 1;
    if (dropped > 0) {
      const size = dropped;
      dropped = 0;
      return { line, oversizedBytes: size };
    }
    let bytes = parts.length === 1 ? parts[0]! : Buffer.concat(parts, held);
    parts = [];
    held = 0;
    if (bytes.length > 0 && bytes[bytes.length - 1] === 0x0d) bytes = bytes.subarray(0, bytes.length - 1);
    return { line, bytes, lastWithoutNewline };
  };

  const append = (piece: Buffer): void => {
    if (dropped > 0) {
      dropped += piece.length;
      return;
    }
    if (held + piece.length > maxLineBytes) {
      dropped = held + piece.length;
      parts = [];
      held = 0;
      return;
    }
    // Copy: the stream may reuse its chunk buffers, and a slice would pin the whole chunk.
    parts.push(Buffer.from(piece));
    held += piece.length;
  };

  for await (const chunk of createReadStream(path, { highWaterMark })) {
    const buf = chunk as Buffer;
    let start = 0;
    for (;;) {
      const nl = buf.indexOf(0x0a, start);
      if (nl === -1) break;
      append(buf.subarray(start, nl));
      yield finish(false);
      start = nl + 1;
    }
    if (start < buf.length) append(buf.subarray(start));
  }
  if (held > 0 || dropped > 0) yield finish(true);
}
