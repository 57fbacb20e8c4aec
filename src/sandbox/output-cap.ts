/**
 * Collects one output stream (stdout or stderr) of a command, keeping at most `maxBytes`: the first half and
 * the last half, with a marker in between that says how many bytes were dropped. Bytes are kept raw and decoded
 * once at the end, so a UTF-8 character split across chunks is reassembled; the cut points are moved to
 * character boundaries, and invalid bytes (binary output) become U+FFFD instead of throwing.
 */
export class CappedOutput {
  private readonly headLimit: number;
  private readonly tailLimit: number;
  private readonly head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer[] = [];
  private tailBytes = 0;
  /** Every byte received, kept or not. */
  totalBytes = 0;

  /** @param maxBytes the cap in bytes (head and tail together, marker not counted); at least 2. */
  constructor(readonly maxBytes: number) {
    this.headLimit = Math.ceil(maxBytes / 2);
    this.tailLimit = Math.floor(maxBytes / 2);
  }

  push(chunk: Buffer): void {
    this.totalBytes += chunk.length;
    let rest = chunk;
    if (this.headBytes < this.headLimit) {
      const take = Math.min(this.headLimit - this.headBytes, rest.length);
      this.head.push(rest.subarray(0, take));
      this.headBytes += take;
      rest = rest.subarray(take);
    }
    if (rest.length === 0 || this.tailLimit === 0) return;
    // Copy: the chunk's buffer may be pooled and reused by the stream.
    this.tail.push(Buffer.from(rest));
    this.tailBytes += rest.length;
    while (this.tailBytes - (this.tail[0]?.length ?? 0) >= this.tailLimit) {
      this.tailBytes -= this.tail.shift()!.length;
    }
  }

  /** Kept bytes were fewer than received. */
  get truncated(): boolean {
    return this.totalBytes > this.maxBytes;
  }

  /** Every byte kept: all of them when under the cap. */
  bytes(): Buffer {
    return Buffer.concat([...this.head, ...this.tail]);
  }

  /** The decoded text: everything when under the cap, else head + marker + tail. */
  text(): string {
    const head = Buffer.concat(this.head);
    let tail = Buffer.concat(this.tail);
    if (!this.truncated) return Buffer.concat([head, tail]).toString('utf8');
    if (tail.length > this.tailLimit) tail = tail.subarray(tail.length - this.tailLimit);
    // A word the cut goes through is dropped whole (up to 256 bytes of it): half a token is a fragment no
    // redaction rule knows, and its other half is gone (twelfth trial: a token's last 20 characters stayed).
    const headCut = wordSafeEnd(head, utf8SafeEnd(head));
    const tailStart = wordSafeStart(tail, utf8SafeStart(tail));
    const kept = headCut + (tail.length - tailStart);
    const marker = `\n[… ${this.totalBytes - kept} bytes of output dropped by mnemara …]\n`;
    return head.subarray(0, headCut).toString('utf8') + marker + tail.subarray(tailStart).toString('utf8');
  }
}

/** Bytes a token is made of (ASCII letters, digits and `_-./+=:%`): a cut inside a run of them cut a word. */
function wordByte(b: number): boolean {
  return (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a) || b === 0x5f || b === 0x2d || b === 0x2e || b === 0x2f || b === 0x2b || b === 0x3d || b === 0x3a || b === 0x25;
}

/** `end` moved back to the start of the word it cuts, if that word began within the last 256 bytes. */
function wordSafeEnd(buf: Buffer, end: number): number {
  if (end === 0 || end < buf.length || !wordByte(buf[end - 1]!)) return end;
  for (let i = end - 1; i >= Math.max(0, end - 256); i--) if (!wordByte(buf[i]!)) return i + 1;
  return end;
}

/** `start` moved past the rest of the word it cuts, if that word ends within 256 bytes. */
function wordSafeStart(buf: Buffer, start: number): number {
  if (start >= buf.length || !wordByte(buf[start]!)) return start;
  for (let i = start; i < Math.min(buf.length, start + 256); i++) if (!wordByte(buf[i]!)) return i;
  return start;
}

/** Length of `buf` without a trailing incomplete UTF-8 sequence (so the cut does not produce U+FFFD). */
function utf8SafeEnd(buf: Buffer): number {
  for (let back = 1; back <= Math.min(3, buf.length); back++) {
    const byte = buf[buf.length - back]!;
    if ((byte & 0xc0) === 0x80) continue; // continuation byte: look further back for the lead
    const need = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return need > back ? buf.length - back : buf.length;
  }
  return buf.length;
}

/** Offset of the first byte of `buf` that is not a UTF-8 continuation byte (at most 3 skipped). */
function utf8SafeStart(buf: Buffer): number {
  let i = 0;
  while (i < 3 && i < buf.length && (buf[i]! & 0xc0) === 0x80) i++;
  return i;
}

