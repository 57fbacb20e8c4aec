/**
 * New-user trial 28 F10: `learn` with a good file and an unreadable one said "1 × not a transcript mnemara can
 * read" without naming the file (only `--json` did), and a binary file was described by ~300 characters of its
 * escaped bytes. The files are written by the test.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderReport } from '../../src/cli/commands/learn.js';
import { learnPaths } from '../../src/memory/learn.js';

const det = { extractor: 'deterministic' as const, config: { maxRawMemories: 256, memoryMdTokens: 8000, summaryTokens: 1500 } };
/** The first bytes of an x86-64 ELF executable, then padding and some symbol names. */
const ELF = Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]), Buffer.alloc(56), Buffer.from('\0GLIBC_2.34\0__libc_start_main\0', 'latin1'), Buffer.alloc(400, 0x90)]);
const ITEMS = [
  { role: 'user', content: 'Run the tests' },
  { type: 'function_call', call_id: 'a', name: 'shell', arguments: '{"command": "npm test"}' },
  { type: 'function_call_output', call_id: 'a', output: '{"output": "5 passing", "metadata": {"exit_code": 0}}' },
  { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'All 5 pass.' }] },
];

async function files(): Promise<{ dir: string; good: string; chat: string; elf: string; nul: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'mnemara-t28-skip-'));
  const good = join(dir, 'run.jsonl');
  const chat = join(dir, 'chat completion.json');
  const elf = join(dir, 'tool.bin');
  const nul = join(dir, 'notes.txt');
  await writeFile(good, ITEMS.map((i) => JSON.stringify(i)).join('\n') + '\n');
  await writeFile(chat, JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: 'hi' } }] }));
  await writeFile(elf, ELF);
  await writeFile(nul, 'plain words\0\0\0then a NUL run\n');
  return { dir, good, chat, elf, nul };
}

describe('learn names what it skipped, and calls a binary file binary', () => {
  it('the text report names each skipped file beside its reason', async () => {
    const f = await files();
    const ws = await mkdtemp(join(tmpdir(), 'mnemara-t28-ws-'));
    const report = await learnPaths([f.good, f.chat, f.elf], ws, det);
    const text = renderReport(report, ws);
    expect(text).toContain(`2 × not a transcript mnemara can read: '${f.chat}', ${f.elf}`);
  });

  it('a binary file (ELF magic, or NUL bytes in text) is refused as binary, without its bytes', async () => {
    const f = await files();
    for (const [path, what] of [[f.elf, /a binary file \(an ELF executable\) of 494 bytes, not text/], [f.nul, /a binary file of \d+ bytes, not text/]] as const) {
      const ws = await mkdtemp(join(tmpdir(), 'mnemara-t28-ws-'));
      const err = await learnPaths([path], ws, det).then(() => undefined, (e: Error) => e);
      expect(err?.message).toMatch(what);
      expect(err?.message).not.toMatch(/\\u0000|\\u0002|GLIBC|\\x7f/);
    }
  });
});
