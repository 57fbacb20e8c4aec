/**
 * `npx tsx bench/gen-transcript.ts OUT [MiB=1024] [--huge-line]`
 *
 * Writes a synthetic Claude Code session JSONL of about MiB mebibytes to OUT, streaming (for `mnemara learn`
 * under a small heap): a task, then turns of Bash calls whose results are 16–512 KiB logs (every tenth one
 * failing with a traceback, fixed by an `apt-get install` later), U+2028 in outputs, a lone surrogate escape, a
 * run of NUL bytes and a cut fragment glued to a record; with `--huge-line`, one tool result of 80 MiB in the
 * middle (over the 64 MiB line cap: it must become a stub). Deterministic: same arguments, same bytes.
 */
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';

const [out, mibArg] = process.argv.slice(2).filter((a) => !a.startsWith('--'));
if (!out) {
  console.error('usage: gen-transcript.ts OUT [MiB] [--huge-line]');
  process.exit(2);
}
const target = Number(mibArg ?? 1024) * 1024 * 1024;
const huge = process.argv.includes('--huge-line');
const ws = createWriteStream(out);
let written = 0;
let seed = 42;
const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
const sid = '0b5e7a1c-big0-4000-8000-000000000001';
let t = Date.UTC(2026, 0, 5, 9, 0, 0);
const ts = () => new Date((t += 1500)).toISOString();

async function put(s: string): Promise<void> {
  written += Buffer.byteLength(s);
  if (!ws.write(s)) await once(ws, 'drain');
}
const line = (o: unknown) => `${JSON.stringify(o)}\n`;
const ev = (type: 'user' | 'assistant', content: unknown, extra: Record<string, unknown> = {}) =>
  line({ type, sessionId: sid, uuid: `u${written}`, timestamp: ts(), isSidechain: false, message: { role: type, content, ...(type === 'assistant' ? { id: `m${written}`, model: 'claude-sonnet-4-5' } : {}) }, ...extra });

function log(kb: number, fail: boolean): string {
  const rows: string[] = [];
  let size = 0;
  for (let i = 0; size < kb * 1024; i += 1) {
    const r = `tests/test_mod_${i % 97}.py::test_case_${i} PASSED [${(i % 100).toString().padStart(3)}%] elapsed=${(rand() * 3).toFixed(3)}s \u2028 ok`;
    rows.push(r);
    size += r.length + 1;
  }
  if (fail) rows.push('Traceback (most recent call last):', '  File "setup.py", line 12', 'Error: pg_config executable not found.', 'Exit code 1');
  return rows.join('\n');
}

await put(`\uFEFF${ev('user', 'Make the test suite pass on this checkout; the CI image is Debian bookworm.')}`);
let turn = 0;
let hugeDone = false;
while (written < target) {
  turn += 1;
  const fail = turn % 10 === 3;
  const cmd = fail ? 'pip install -e .' : turn % 10 === 4 ? 'sudo apt-get update && sudo apt-get install -y libpq-dev' : `pytest -q tests/test_mod_${turn % 97}.py`;
  const id = `toolu_${turn}`;
  await put(ev('assistant', [{ type: 'tool_use', id, name: 'Bash', input: { command: cmd } }]));
  if (huge && !hugeDone && written > target / 2) {
    hugeDone = true;
    const big = 'x'.repeat(80 * 1024 * 1024);
    await put(ev('user', [{ type: 'tool_result', tool_use_id: id, content: big }]));
    continue;
  }
  const kb = 16 + Math.floor(rand() * 496);
  await put(ev('user', [{ type: 'tool_result', tool_use_id: id, content: log(kb, fail), is_error: fail }]));
  if (turn === 50) await put('\0\0\0\0\0\0\0\0' + ev('assistant', [{ type: 'text', text: 'Checked the first modules.' }]));
  if (turn === 60) await put('{"type":"assistant","sessionId":"' + ev('assistant', [{ type: 'text', text: 'After a cut fragment.' }]));
  if (turn === 70) await put(ev('user', 'A lone surrogate \ud800 in text typed mid-run: keep going.').replace('\\ud800', '\\ud800'));
}
await put(ev('assistant', [{ type: 'text', text: 'All tests pass now: libpq-dev was missing.' }]));
ws.end();
await once(ws, 'finish');
console.error(`wrote ${written} bytes, ${turn} turns, to ${out}`);
