/**
 * The CLI's progress lines: `mnemara run` hands the printer only the progress events of a step (it prints the
 * starts and ends itself), and those were never shown, so a long snapshot of a large file printed nothing for
 * a minute and a half. The printer must show a step's progress once it has run for a second, whether or not it
 * saw the step start, and no more than once a second.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { progressPrinter } from '../../src/cli/output.js';

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('progressPrinter', () => {
  it('prints the bytes of a long step that it never saw start, at most once a second', () => {
    vi.useFakeTimers({ now: new Date('2026-12-02T00:00:00Z') });
    const lines: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    });
    const print = progressPrinter(true);
    const total = 256 * 1024 * 1024;
    for (let t = 0; t <= 4000; t += 250) {
      print({ step: 'snapshot', phase: 'progress', done: (total / 4000) * t, total, unit: 'bytes', message: 'big.bin' });
      vi.advanceTimersByTime(250);
    }
    expect(lines.length).toBeGreaterThanOrEqual(3);
    expect(lines.length).toBeLessThanOrEqual(4);
    expect(lines[0]).toMatch(/^ {2}snapshot \d+% \d+\/268435456 bytes big\.bin\n$/);
  });
});
