import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeJsonl } from '../../src/transcript/decode.js';
import { loadTranscript } from '../../src/transcript/reader.js';
import { TranscriptWriter } from '../../src/transcript/writer.js';

const tmp = () => mkdtemp(join(tmpdir(), 'mnemara-damage-'));
const rec = (i: number) => JSON.stringify({ type: 'message', v: 1, ts: '2026-01-01T00:00:00.000Z', turn: i, role: 'assistant', text: `r${i}` });

describe('decodeJsonl', () => {
  it('recovers records glued after a cut fragment and after a NUL run, keeps the damage as stubs, and tolerates BOM and blank first lines', async () => {
    const p = join(await tmp(), 'd.jsonl');
    await writeFile(p, Buffer.concat([
      Buffer.from(`\n\uFEFF${rec(1)}\n`),
      Buffer.from(`${rec(2).slice(0, 30)}${rec(3)}\n`),
      Buffer.alloc(4096),
      Buffer.from(`${rec(4)}\n{"type":"message","text":"\\ud800 lone"}\n${rec(5).slice(0, 20)}`),
    ]));
    const items = [];
    for await (const d of decodeJsonl(p)) items.push(d);
    const values = items.filter((d) => 'value' in d).map((d) => (d as { value: { text: string } }).value.text);
    expect(values).toEqual(['r1', 'r3', 'r4', '\uFFFD lone']);
    const damage = items.filter((d) => 'damage' in d).map((d) => (d as { damage: { bytes: number; reason: string } }).damage);
    expect(damage).toMatchObject([
      { bytes: 30, reason: 'cut fragment before a complete record' },
      { bytes: 4096, reason: 'run of NUL bytes' },
      { bytes: 20, reason: expect.stringMatching(/^cut last line/) },
    ]);
    expect(items.filter((d) => 'value' in d && d.recovered).length).toBe(2);
    expect(items.filter((d) => 'value' in d && d.surrogates > 0).length).toBe(1);
  });

  it('turns a line over the cap into a stub with its size, without holding it', async () => {
    const p = join(await tmp(), 'big.jsonl');
    await writeFile(p, `${rec(1)}\n{"text":"${'x'.repeat(3 * 1024 * 1024)}"}\n${rec(2)}\n`);
    const items = [];
    for await (const d of decodeJsonl(p, { maxLineBytes: 1024 * 1024 })) items.push(d);
    expect(items.map((d) => ('value' in d ? 'value' : d.damage.reason))).toEqual(['value', expect.stringMatching(/^line of 3145739 bytes is over the 1048576-byte cap/), 'value']);
  });
});

describe('TranscriptWriter on a damaged file', () => {
  it('repairs a cut tail before it appends, so the new record is not glued to the fragment', async () => {
    const p = join(await tmp(), 's.jsonl');
    await writeFile(p, `${rec(1)}\n${rec(2).slice(0, 25)}`);
    const w = await TranscriptWriter.open(p);
    await w.append({ type: 'message', turn: 3, role: 'assistant', text: 'after the cut' });
    await w.close();
    const { records, skipped } = await loadTranscript(p);
    expect(records.map((r) => (r.record as { text: string }).text)).toEqual(['r1', 'after the cut']);
    expect(skipped).toMatchObject([{ line: 2 }]);
  });

  it('escapes U+2028/U+2029, so a reader splitting on Unicode line ends keeps the record whole', async () => {
    const p = join(await tmp(), 'u.jsonl');
    const w = await TranscriptWriter.open(p);
    await w.append({ type: 'message', turn: 1, role: 'assistant', text: 'a\u2028b\u2029c' });
    await w.close();
    const raw = await readFile(p, 'utf8');
    expect(raw).not.toMatch(/[\u2028\u2029]/);
    expect(raw).toContain('\\u2028');
    expect(raw.split(/\r?\n|\u2028|\u2029/).filter(Boolean)).toHaveLength(1);
    expect((await loadTranscript(p)).records[0]!.record).toMatchObject({ text: 'a\u2028b\u2029c' });
  });
});

describe('learn streams end to end', () => {
  it('learns a 32 MiB transcript with a 128 MB heap (import, store, re-redaction, phase 1)', async () => {
    const dir = await tmp();
    const file = join(dir, 'big.jsonl');
    const gen = spawnSync('npx', ['tsx', 'bench/gen-transcript.ts', file, '32'], { encoding: 'utf8' });
    expect(gen.status, gen.stderr).toBe(0);
    const ws = join(dir, 'ws');
    await (await import('node:fs/promises')).mkdir(ws);
    const run = spawnSync('npx', ['tsx', 'src/cli/main.ts', 'learn', file, '-w', ws, '--deterministic', '--json'], {
      encoding: 'utf8',
      env: { ...process.env, NODE_OPTIONS: '--max-old-space-size=128' },
      maxBuffer: 64 * 1024 * 1024,
    });
    expect(run.status, run.stderr.slice(-2000)).toBe(0);
    const report = JSON.parse(run.stdout) as { formats: Array<{ format: string; rollouts: number; lessons: number; damaged: Record<string, number> }> };
    expect(report.formats).toMatchObject([{ format: 'claude-code', rollouts: 1 }]);
    expect(report.formats[0]!.lessons).toBeGreaterThan(0);
    expect(report.formats[0]!.damaged).toMatchObject({ 'run of NUL bytes': 1 });
    expect(await readFile(join(ws, 'memories', 'MEMORY.md'), 'utf8')).toMatch(/libpq-dev/);
  }, 300_000);
});
