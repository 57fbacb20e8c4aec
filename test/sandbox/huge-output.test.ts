/**
 * Issue #10 B: with the user's own config raising `sandbox.maxOutputBytes`, a command printing ~300 MB crashed the
 * run with "Maximum call stack size exceeded". The capture kept its head and tail; the crash was after it, where
 * every tool result goes through redaction before the transcript: the hex dump rule spread a block of dump lines
 * into `push(...)`, and 131 072 lines of `00` (393 KB) are past the stack. Nothing here needs Docker: the capture
 * code is the same `CappedOutput`, and the local sandbox runs the real command.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CappedOutput } from '../../src/sandbox/output-cap.js';
import { LocalSandbox } from '../../src/sandbox/local/local-sandbox.js';
import { BashSession, formatExec } from '../../src/agent/tools/bash.js';
import { rememberingRedact } from '../../src/memory/redact-parts.js';
import { redactHexDumps } from '../../src/memory/redact-hexdump.js';

const MB300 = 300_000_000;
/** A raised cap (the default is 64 KiB), still far below the output. */
const CAP = 4 * 1024 * 1024;
const note = (dropped: number): string => `\n[… ${dropped} bytes of output dropped by mnemara …]\n`;

describe('300 MB of command output under a raised cap', () => {
  it('is captured, streamed in 64 KiB chunks, as head + note + tail, and redacted for the transcript without a throw', () => {
    const out = new CappedOutput(CAP);
    const chunk = Buffer.from('00\n'.repeat(64 * 1024 / 3 | 0)); // whole lines, so the cuts fall between them
    let sent = 0;
    while (sent < MB300) {
      const piece = sent + chunk.length <= MB300 ? chunk : chunk.subarray(0, MB300 - sent);
      out.push(piece);
      sent += piece.length;
    }
    expect(out.totalBytes).toBe(MB300);
    expect(out.truncated).toBe(true);
    const text = out.text();
    // The note counts exactly the bytes not in the text: the 300 MB less the kept head and tail.
    const dropped = Number(/\n\[… (\d+) bytes of output dropped by mnemara …\]\n/.exec(text)?.[1]);
    expect(dropped).toBe(MB300 - (Buffer.byteLength(text) - Buffer.byteLength(note(dropped))));
    expect(dropped).toBeGreaterThanOrEqual(MB300 - CAP);
    expect(dropped).toBeLessThan(MB300 - CAP + 600); // only the word-safe cuts' few bytes more
    expect(Buffer.byteLength(text)).toBeLessThan(CAP + 200);
    expect(text.startsWith('00\n00\n')).toBe(true);
    expect(text.endsWith('00\n00\n')).toBe(true);

    // What the transcript gets: ~1.4 million lines of `00` (a hex dump, as far as the rule can tell).
    const shown = formatExec({ exitCode: 0, stdout: text, stderr: '', durationMs: 1, timedOut: false, truncated: true, oomKilled: false });
    let redacted = '';
    expect(() => (redacted = rememberingRedact()(shown))).not.toThrow();
    expect(redacted).toContain('bytes of output dropped by mnemara');
    expect(redacted).toContain('output truncated: the middle was dropped');
  }, 60_000);

  it('keeps a hex dump block of any length whole (the rule that overflowed), redacting only one that holds a secret', () => {
    const lines = '41\n'.repeat(200_000); // 'A' × 200 000 as a one-byte-a-line dump
    expect(redactHexDumps(lines, '[REDACTED]', () => false)).toBe(lines);
    const secret = redactHexDumps(lines, '[REDACTED]', () => true);
    expect(secret).toContain('[REDACTED]');
    expect(secret).not.toContain('41\n41');
  });

  describe('end to end, through the bash tool on the local sandbox', () => {
    let sandbox: LocalSandbox;
    beforeAll(async () => {
      sandbox = await LocalSandbox.create({ sessionId: 'huge-output', timeoutMs: 120_000, maxOutputBytes: CAP });
    });
    afterAll(async () => {
      await sandbox?.close();
    });

    it('a command printing 300 MB gives the model head + note + tail, and the transcript its redaction', async () => {
      const bash = new BashSession(sandbox, { maxOutputBytes: CAP, execTimeoutMs: 120_000 });
      const result = await bash.run({ command: `yes 00 | head -c ${MB300}` });
      expect(result.exec?.exitCode).toBe(0);
      expect(result.exec?.truncated).toBe(true);
      expect(result.text).toMatch(/\n\[… \d+ bytes of output dropped by mnemara …\]\n/);
      const dropped = Number(/\[… (\d+) bytes/.exec(result.text)![1]);
      expect(dropped).toBeGreaterThanOrEqual(MB300 - CAP);
      expect(dropped).toBeLessThan(MB300 - CAP + 600); // only the word-safe cuts' few bytes more
      expect(result.text).toContain('output truncated: the middle was dropped');
      expect(() => rememberingRedact()(result.text)).not.toThrow();
    }, 120_000);
  });
});
