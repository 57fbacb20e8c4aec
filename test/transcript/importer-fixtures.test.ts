import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { cp, mkdtemp, readFile, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { judgeEntries } from '../../scripts/eval-memory/judge.js';
import { LabelsSchema, type Case } from '../../scripts/eval-memory/labels.js';
import { learnPaths } from '../../src/memory/learn.js';
import { memoryPaths } from '../../src/memory/layout.js';
import { parseMemoryMd } from '../../src/memory/memory-md.js';
import { loadTranscript } from '../../src/transcript/reader.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'importers');
const det = { extractor: 'deterministic' as const, config: { maxRawMemories: 256, memoryMdTokens: 8000, summaryTokens: 1500 } };
const FORMATS = ['claude-code', 'codex', 'swe-agent', 'mini-swe-agent', 'openhands', 'aider', 'agents-sdk', 'agents-sdk-items', 'gemini-cli'];

/** Every labelled fixture: `<base>.labels.json` beside `<base>.<ext>` (or a directory `<base>/`). */
function cases(): Array<{ format: string; transcript: string; labels: Case['labels'] }> {
  const out = [];
  for (const format of FORMATS) {
    for (const dir of [join(ROOT, format), join(ROOT, format, 'multi')]) {
      if (!existsSync(dir)) continue;
      for (const name of readdirSync(dir).filter((n) => n.endsWith('.labels.json'))) {
        const base = name.slice(0, -'.labels.json'.length);
        const transcript = readdirSync(dir).map((n) => join(dir, n)).find((p) => p !== join(dir, name) && (p === join(dir, base) || (p.startsWith(join(dir, `${base}.`)) && statSync(p).isFile())))!;
        out.push({ format, transcript, labels: LabelsSchema.parse(JSON.parse(readFileSync(join(dir, name), 'utf8'))) });
      }
    }
  }
  return out;
}

async function entriesOf(ws: string): Promise<string[]> {
  const text = await readFile(memoryPaths(ws).memoryMd, 'utf8').catch(() => '');
  return text ? parseMemoryMd(text).entries.map((e) => e.text) : [];
}

describe('every importer fixture through learn and the eval scorer', () => {
  const all = cases();
  it('has a labelled run and a damaged variant for every format', () => {
    for (const f of FORMATS) {
      expect(all.filter((c) => c.format === f).length, f).toBeGreaterThanOrEqual(2);
      expect(all.some((c) => c.format === f && /damaged/.test(c.transcript)), f).toBe(true);
    }
  });

  it.each(all.map((c) => [`${c.format}: ${c.transcript.slice(ROOT.length + 1)}`, c] as const))('%s gives the lessons its labels expect', async (_name, c) => {
    const ws = await mkdtemp(join(tmpdir(), 'mnemara-fixture-'));
    const report = await learnPaths([c.transcript], ws, det);
    const learned = report.files.filter((f) => f.status === 'learned');
    expect(learned.length).toBeGreaterThan(0);
    expect(report.files.filter((f) => f.status === 'skipped' && !/derived|meta\.json/.test(f.reason ?? ''))).toEqual([]);
    const judged = judgeEntries(c.labels.repo, [{ transcript: c.transcript, labels: c.labels }], await entriesOf(ws));
    expect(judged.missed, JSON.stringify(await entriesOf(ws))).toEqual([]);
    expect(judged.junkEntries).toEqual([]);
    // Every stored transcript reads back whole: no line skipped, every record valid.
    for (const f of learned) {
      for (const r of f.rollouts) {
        const back = await loadTranscript(memoryPaths(ws).transcript(r.rolloutId));
        expect(back.skipped).toEqual([]);
        expect(back.records.length).toBe(r.records);
      }
    }
    if (/damaged/.test(c.transcript)) {
      const stats = learned[0]!.stats;
      const kept = Object.keys(stats.unknown).length + Object.keys(stats.damaged).length;
      expect(kept).toBeGreaterThan(0);
      if (c.transcript.endsWith('.jsonl')) {
        expect(stats.recovered).toBeGreaterThanOrEqual(1);
        expect(Object.keys(stats.damaged).join()).toMatch(/NUL/);
      }
    }
  });
});

describe('multi-file directories as each agent lays them out', () => {
  it.each(FORMATS)('%s: learned whole, and learning it again adds nothing', async (format) => {
    const ws = await mkdtemp(join(tmpdir(), 'mnemara-multi-'));
    const dir = join(ROOT, format, 'multi');
    const first = await learnPaths([dir], ws, det);
    const transcripts = first.files.filter((f) => f.status === 'learned');
    expect(transcripts.length).toBeGreaterThanOrEqual(2);
    expect(first.files.every((f) => f.format === undefined || f.status === 'learned'), JSON.stringify(first.files.map((f) => [f.path, f.status, f.reason]))).toBe(true);
    const rollouts = transcripts.flatMap((f) => f.rollouts);
    expect(new Set(rollouts.map((r) => r.rolloutId)).size).toBe(rollouts.length);
    const memory = await readFile(memoryPaths(ws).memoryMd, 'utf8');
    const sessions = (await readdir(memoryPaths(ws).sessionsDir)).sort();
    const again = await learnPaths([dir], ws, det);
    expect(again.files.filter((f) => f.status === 'learned')).toEqual([]);
    expect(again.pipeline?.extracted).toEqual([]);
    expect(await readFile(memoryPaths(ws).memoryMd, 'utf8')).toBe(memory);
    expect((await readdir(memoryPaths(ws).sessionsDir)).sort()).toEqual(sessions);
  });

  it('claude-code: the subagent file is its own rollout, with the task its meta.json names', async () => {
    const ws = await mkdtemp(join(tmpdir(), 'mnemara-multi-'));
    const report = await learnPaths([join(ROOT, 'claude-code', 'multi')], ws, det);
    const sub = report.files.flatMap((f) => f.rollouts).find((r) => r.rolloutId.endsWith('-a4f21c'))!;
    expect(sub.task).toMatch(/^Get the pgledger install working in this container\.\n\nSubagent task: Add a CSV export/);
    expect(sub.records).toBeGreaterThan(8);
  });

  it('agents-sdk: MEMORY.md entries arrive in MEMORY.md citing the imported rollout', async () => {
    const ws = await mkdtemp(join(tmpdir(), 'mnemara-multi-'));
    const report = await learnPaths([join(ROOT, 'agents-sdk', 'multi', 'workspace')], ws, det);
    const memFile = report.files.find((f) => f.format === 'agents-sdk-memory')!;
    const id = memFile.rollouts[0]!.rolloutId;
    const entries = parseMemoryMd(await readFile(memoryPaths(ws).memoryMd, 'utf8')).entries;
    const uv = entries.find((e) => /uv run pytest/.test(e.text))!;
    expect(uv.sources).toContain(id);
    expect(entries.some((e) => /^scope:/.test(e.text) || /rollout_summaries\//.test(e.text))).toBe(false);
  });
});

describe('a grown file', () => {
  it('keeps its rollout id and adds only what is new; the same content under another name is a no-op', async () => {
    const ws = await mkdtemp(join(tmpdir(), 'mnemara-grow-'));
    const full = (await readFile(join(ROOT, 'codex', 'pgledger-rollout.jsonl'), 'utf8')).split('\n');
    const file = join(ws, 'rollout.jsonl');
    await writeFile(file, `${full.slice(0, 12).join('\n')}\n`);
    const one = await learnPaths([file], ws, det);
    const id = one.files[0]!.rollouts[0]!.rolloutId;
    const before = await entriesOf(ws);
    await writeFile(file, full.join('\n'));
    const two = await learnPaths([file], ws, det);
    expect(two.files[0]!.rollouts).toMatchObject([{ rolloutId: id, status: 'grown' }]);
    expect(two.pipeline?.extracted).toEqual([id]);
    const after = await entriesOf(ws);
    expect(after.length).toBeGreaterThan(before.length);
    expect(new Set(after).size).toBe(after.length);
    expect(await readdir(memoryPaths(ws).sessionsDir)).toEqual([`${id}.jsonl`]);
    await cp(file, join(ws, 'copy.jsonl'));
    const three = await learnPaths([join(ws, 'copy.jsonl')], ws, det);
    expect(three.files[0]!.status).toBe('unchanged');
  });
});

describe('two files under one session id', () => {
  it('stores the second beside the first when its records do not continue it (trial 28 F6: the first was replaced, "grown")', async () => {
    const ws = await mkdtemp(join(tmpdir(), 'mnemara-same-id-'));
    const full = await readFile(join(ROOT, 'codex', 'pgledger-rollout.jsonl'), 'utf8');
    // Same session_meta id, other records: another session saved under the same id, not a longer copy.
    const other = full.replace(/pgledger/g, 'inkwell').replace(/"2026-03-03T10:0/g, '"2026-03-04T11:0');
    expect(other).not.toBe(full);
    await writeFile(join(ws, 'a.jsonl'), full);
    await writeFile(join(ws, 'b.jsonl'), other);
    const one = await learnPaths([join(ws, 'a.jsonl')], ws, det);
    const id = one.files[0]!.rollouts[0]!.rolloutId;
    const firstStored = await readFile(join(memoryPaths(ws).sessionsDir, `${id}.jsonl`));
    const two = await learnPaths([join(ws, 'b.jsonl')], ws, det);
    const second = two.files[0]!.rollouts[0]!;
    expect(second).toMatchObject({ status: 'new', sharedIdWith: id });
    expect(second.rolloutId).not.toBe(id);
    expect(second.rolloutId.startsWith(`${id}-`)).toBe(true);
    // Nothing lost: the first transcript is as it was, the second is whole under its own id, and names that id.
    expect((await readFile(join(memoryPaths(ws).sessionsDir, `${id}.jsonl`))).equals(firstStored)).toBe(true);
    const stored = await loadTranscript(join(memoryPaths(ws).sessionsDir, `${second.rolloutId}.jsonl`));
    expect(JSON.stringify(stored)).toContain('inkwell');
    expect(JSON.stringify(stored)).toContain(second.rolloutId);
    expect((await readdir(memoryPaths(ws).sessionsDir)).sort()).toEqual([`${id}.jsonl`, `${second.rolloutId}.jsonl`].sort());
    // Learning the second file again (its own copy) is a no-op, not a third rollout.
    await cp(join(ws, 'b.jsonl'), join(ws, 'b2.jsonl'));
    await writeFile(join(ws, 'b2.jsonl'), `${other}\n`);
    const three = await learnPaths([join(ws, 'b2.jsonl')], ws, det);
    expect(three.files[0]!.rollouts[0]).toMatchObject({ rolloutId: second.rolloutId, status: 'same' });
  });
});

describe('refusals', () => {
  it('a lone file in no format lists the formats and says what it looked like; in a directory it is skipped with that reason', async () => {
    const ws = await mkdtemp(join(tmpdir(), 'mnemara-refuse-'));
    const p = join(ws, 'notes.json');
    await writeFile(p, JSON.stringify({ title: 'x', items: [1, 2] }));
    await expect(learnPaths([p], ws, det)).rejects.toMatchObject({ code: 'INVALID_INPUT', message: expect.stringContaining('a JSON document with keys title, items'), hint: expect.stringMatching(/codex: .*swe-agent: .*aider: /) });
    await expect(learnPaths([ws], ws, det)).rejects.toMatchObject({ code: 'INVALID_INPUT', message: expect.stringContaining('no transcript found') });
    await cp(join(ROOT, 'codex', 'pgledger-rollout.jsonl'), join(ws, 'rollout.jsonl'));
    const report = await learnPaths([ws], ws, { ...det, dryRun: true });
    expect(report.files.find((f) => f.path === p)).toMatchObject({ status: 'skipped', reason: expect.stringContaining('keys title, items') });
    expect(report.files.find((f) => f.path.endsWith('rollout.jsonl'))).toMatchObject({ status: 'learned', rollouts: [{ status: 'new', lessons: null }] });
    expect(await readdir(ws)).not.toContain('sessions');
  });
});
