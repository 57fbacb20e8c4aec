import { readFile, writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { readArchive } from '../../src/memory/archive.js';
import { parseMemoryMd } from '../../src/memory/memory-md.js';
import { consolidate } from '../../src/memory/phase2/index.js';
import type { Candidate } from '../../src/memory/phase2/merge.js';
import { dropSuperseded } from '../../src/memory/phase2/supersede.js';
import { loadState } from '../../src/memory/state.js';
import type { MemoryKind } from '../../src/memory/types.js';
import { raw, tempWorkspace, writeRollout } from './helpers.js';

function cand(text: string, order: number, kind: MemoryKind = 'pitfall'): Candidate {
  return { kind, text, sources: [`r${order}`], importance: 3, at: `2026-01-${String(10 - order).padStart(2, '0')}`, order, count: 1, ids: new Set([`m-${order}`]), keywords: [] };
}
const stale = (cs: Candidate[]) => dropSuperseded(cs).superseded.map((s) => s.stale.text);
const day = (i: number) => new Date(Date.UTC(2026, 0, 1) + i * 86_400_000).toISOString();

// New-user trial, second round (issue 12 item 2): the same template and a leading `cd` make no contradiction.
describe('rule 1 compares only what entries state, not mnemara’s template or `cd … &&`', () => {
  it('an unrelated later pitfall in the same template does not retire a true one (Python, Go)', () => {
    const tests = cand("In this environment `cd /workspace && uv run pytest tests/api -q` failed: “E   ModuleNotFoundError: No module named 'httpx'”. What worked: `cd /workspace && uv sync --extra test && uv run pytest tests/api -q`.", 1);
    const db = cand('In this environment `cd /workspace && uv run alembic upgrade head` failed: “sqlalchemy.exc.OperationalError: (sqlite3.OperationalError) unable to open database file”. What worked: `cd /workspace && mkdir -p var && uv run alembic upgrade head`.', 0);
    expect(stale([db, tests])).toEqual([]);
    // No error line to quote: the entries share nothing but the template and `cd`.
    const lint = cand('In this environment `cd /src/svc && make lint` failed (exit 2). What worked: `cd /src/svc && make tools lint`.', 1);
    const gen = cand('In this environment `cd /src/web && pnpm run gen` failed (exit 1). What worked: `cd /src/web && pnpm install && pnpm run gen`.', 0);
    expect(stale([gen, lint])).toEqual([]);
  });

  // Thirteenth trial F21: the agent's notes on different jobs of one tool shared only the note's template.
  it("the agent's notes on different jobs of one tool do not retire each other; the same job in other words does", () => {
    const note = (task: string, said: string, order: number) => cand(`Noted by the agent at the end of a run (${task}): “${said}”`, order, 'procedure');
    const lint = note('lint', 'run the linter with `npm run lint` (the CI uses it).', 1);
    const build = note('build', 'build the bundle with `npm run build` before publishing.', 0);
    expect(stale([build, lint])).toEqual([]);
    const tests = note('tests', 'run the unit tests with `make test`.', 1);
    const docs = note('docs', 'regenerate the API docs with `make docs` after changing public functions.', 0);
    expect(stale([docs, tests])).toEqual([]);
    const check = note('tests again', 'run the unit tests with `make check`.', 0);
    expect(stale([check, tests])).toEqual([tests.text]);
  });

  it('the same subject with other arguments of the same tool still supersedes, a leading `cd` ignored', () => {
    const old = cand('Build the firmware image with `cd fw && cmake --build build -j16` (the default target).', 1, 'procedure');
    const neu = cand('Build the firmware image with `cmake --build build -j4` (the default target).', 0, 'procedure');
    expect(stale([neu, old])).toEqual([old.text]);
  });
});

// Item 4: a fact of migration retires preferences and a person's entries naming the old stack.
describe('a stated migration retires older preferences and hand entries, archived with a tombstone and reported', () => {
  it('npm → pnpm: the preference and the hand note go to the archive; the report names both', async () => {
    const paths = await tempWorkspace();
    const config = { maxRawMemories: 256, memoryMdTokens: 3000, summaryTokens: 800 };
    await writeRollout(paths, 'r-1', day(1), [raw('preference', 'The user said mid-run: “from now on always install with `npm ci`, never `npm install`”', 5)]);
    await consolidate({ paths, config, mode: 'deterministic', now: () => new Date(day(2)) });
    const md = await readFile(paths.memoryMd, 'utf8');
    await writeFile(paths.memoryMd, md.replace('## Preferences (from the user)\n', '## Preferences (from the user)\n\n- Run `npm run build --workspace @x/icons` before the app build.\n'));
    await writeRollout(paths, 'r-2', day(3), [raw('fact', 'The task states that the repository changed: “我们已经从 npm 迁移到 pnpm 了”', 5)]);
    const steps: string[] = [];
    const r = await consolidate({ paths, config, mode: 'deterministic', now: () => new Date(day(4)), onProgress: (e) => steps.push(e.message ?? '') });
    const kept = parseMemoryMd(await readFile(paths.memoryMd, 'utf8')).entries.map((e) => e.text);
    expect(kept.some((t) => /npm ci|--workspace @x\/icons/.test(t))).toBe(false);
    expect(kept.some((t) => t.includes('pnpm'))).toBe(true);
    expect(r.superseded.map((s) => s.stale).join('\n')).toMatch(/npm ci[\s\S]*@x\/icons|@x\/icons[\s\S]*npm ci/);
    const archived = await readArchive(paths);
    const state = await loadState(paths.stateFile);
    for (const s of r.superseded) {
      expect(archived.map((e) => e.id)).toContain(s.id);
      expect(state.forgotten[s.id]?.reason).toBe('superseded');
      expect(steps.at(-1)).toContain(s.id);
    }
    // The next consolidation does not bring the preference back from r-1's raw memories.
    await consolidate({ paths, config, mode: 'deterministic', force: true, now: () => new Date(day(5)) });
    expect(parseMemoryMd(await readFile(paths.memoryMd, 'utf8')).entries.some((e) => e.text.includes('npm ci'))).toBe(false);
  });
});
