import { describe, expect, it } from 'vitest';
import { CappedOutput } from '../../src/sandbox/output-cap.js';

function collect(cap: number, chunks: Buffer[]): CappedOutput {
  const out = new CappedOutput(cap);
  for (const c of chunks) out.push(c);
  return out;
}

describe('CappedOutput', () => {
  it('keeps everything under the cap, byte-exact, across chunk splits', () => {
    const euro = Buffer.from('€', 'utf8');
    const out = collect(100, [Buffer.from('a'), euro.subarray(0, 1), euro.subarray(1, 2), euro.subarray(2), Buffer.from('b')]);
    expect(out.truncated).toBe(false);
    expect(out.text()).toBe('a€b');
    expect(out.bytes().equals(Buffer.from('a€b'))).toBe(true);
  });

  it('keeps the head and the tail and counts the dropped bytes exactly', () => {
    const data = Buffer.from('0123456789'.repeat(100));
    const chunks = Array.from({ length: 100 }, (_, i) => data.subarray(i * 10, i * 10 + 10));
    const out = collect(20, chunks);
    expect(out.truncated).toBe(true);
    expect(out.totalBytes).toBe(1000);
    expect(out.text()).toBe('0123456789\n[… 980 bytes of output dropped by mnemara …]\n0123456789');
  });

  it('drops a word the cut goes through, so no half of a token is kept (twelfth trial, F28)', () => {
    const token = 'ghp_FAKEcutAtTheCap0a1B2c3D4e5F6g7H8i9J0kL';
    // 64 bytes kept (32 head, 32 tail): the token starts 20 bytes before the end, so the tail's cut goes through it,
    // and another starts 10 bytes before the head's cut.
    const text = `${'h '.repeat(11)}${token} middle ${'m '.repeat(200)}x ${token.slice(0, 22)}${token.slice(22)} end`;
    const out = collect(64, [Buffer.from(text)]);
    const result = out.text();
    const [head, tail] = result.split(/\n\[… \d+ bytes of output dropped by mnemara …\]\n/);
    expect(head!.endsWith(' ')).toBe(true);
    expect(tail!.startsWith(' ')).toBe(true);
    for (let n = 8; n <= token.length; n++) {
      expect(result).not.toContain(token.slice(token.length - n));
      expect(result).not.toContain(token.slice(0, n));
    }
    const dropped = Number(/(\d+) bytes/.exec(result)![1]);
    expect(dropped + Buffer.byteLength(head!) + Buffer.byteLength(tail!)).toBe(Buffer.byteLength(text));
  });

  it('moves the cut points to character boundaries instead of emitting U+FFFD', () => {
    const text = 'é'.repeat(50) + '€'.repeat(50);
    const out = collect(15, [Buffer.from(text)]);
    const result = out.text();
    expect(result).not.toContain('\uFFFD');
    const [head, tail] = result.split(/\n\[… \d+ bytes of output dropped by mnemara …\]\n/);
    expect(head).toBe('é'.repeat(4));
    expect(tail).toBe('€'.repeat(2));
    const dropped = Number(/(\d+) bytes/.exec(result)![1]);
    expect(dropped + Buffer.byteLength(head!) + Buffer.byteLength(tail!)).toBe(Buffer.byteLength(text));
  });

  it('turns invalid bytes into U+FFFD without throwing', () => {
    const out = collect(100, [Buffer.from([0xff, 0xfe, 0x41, 0x00, 0xc3])]);
    expect(out.text()).toBe('\uFFFD\uFFFDA\u0000\uFFFD');
  });

  it('holds no more than the cap plus one chunk, whatever the input size', () => {
    const out = new CappedOutput(1000);
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    for (let i = 0; i < 200; i++) out.push(chunk);
    expect(out.totalBytes).toBe(200 * chunk.length);
    expect(out.bytes().length).toBeLessThanOrEqual(1000 + chunk.length);
    expect(Buffer.byteLength(out.text())).toBeLessThan(1100);
  });
});
