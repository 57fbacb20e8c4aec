/**
 * Issue 12, kinds found on the tuned parts in round 26 (each test failed before its rule; the inputs are written
 * for these tests, with other tools, repositories and languages than the corpus runs). The rules read structure —
 * what a run ran and got through, the shape of its commands — not a language's words:
 * - a change of the repository stated in a language no list reads retires an older chain whose commands use a
 *   name the statement gives and the stating run never ran (`unused-terms.ts`);
 * - a line added to an ignore file (`.gitignore`) is no change of the code: the chain it sits in (an install, then
 *   a variable in front of the command) stays one fix instead of an install without its variable (`config-paths.ts`);
 * - "from now on", "always", "never", "this time", "for now" in more languages (`durable-far.ts`): a lasting rule
 *   beside a one-off order is kept, the one-off is not;
 * - a flaky-test note is retired when a newer completed task names its test file and the run's tests pass: the user
 *   fixed the flake and said so, in whatever language (`task-state.ts`).
 */
import { describe, expect, it } from 'vitest';
import type { Candidate } from '../../src/memory/phase2/merge.js';
import { dropSuperseded } from '../../src/memory/phase2/supersede.js';
import { extractDeterministic } from '../../src/memory/phase1/deterministic/index.js';
import { viewRollout } from '../../src/memory/phase1/rollout.js';
import { TranscriptBuilder } from './phase1/build.js';
import { closeFinishedTasks } from '../../src/memory/phase2/task-state.js';

const entry = (kind: Candidate['kind'], text: string, order: number, source: string): Candidate => ({
  kind,
  text,
  sources: [source],
  importance: 4,
  at: '2026-04-08',
  order,
  count: 1,
  ids: new Set([`m-${source}-${text.length}`]),
  keywords: [],
});

describe('a change stated in a language no list reads retires the chain its run did without', () => {
  // Invented wording: "we don't use conda any more; micromamba and environment.yml are gone, run `pixi run test`".
  const change = entry('fact', 'The task states that the repository changed: “Lo zavemo conda nemore; micromamba ka environment.yml kwisha, zaa `pixi run test`.”', 0, 'r2');
  const chain = entry(
    'pitfall',
    '`pytest -q` needs `micromamba create -y -f environment.yml`, then `export MAMBA_ROOT_PREFIX=/opt/mamba` first. Without it `pytest -q` failed: “ModuleNotFoundError: No module named numpy”.',
    1,
    'r1',
  );
  const lint = entry('procedure', 'Run the linter with `ruff check .` (passed in this workspace).', 1, 'r1');

  it('the older chain names micromamba, which the stating run never ran: stale; an unrelated procedure stays', () => {
    const { kept } = dropSuperseded([change, chain, lint], [{ order: 0, passed: ['pixi run test'], exited0: ['pixi install', 'pixi run test'], ran: ['pixi install', 'pixi run test'] }]);
    expect(kept).toEqual([change, lint]);
  });

  it('not when the stating run typed a step of the chain again, nor from a literal such as `|| true`', () => {
    const again = dropSuperseded([change, chain], [{ order: 0, passed: ['pixi run test'], exited0: ['micromamba create -y -f environment.yml'], ran: ['micromamba create -y -f environment.yml && pixi run test'] }]);
    expect(again.kept).toContain(chain);
    const truthy = entry('fact', 'The task states that the repository changed: “Ny script tsy mandeha true intsony.”', 0, 'r2');
    const swallowed = entry('pitfall', '`npm run e2e` exits 0 even when it fails (its script ends in `|| true`): read its output.', 1, 'r1');
    expect(dropSuperseded([truthy, swallowed], [{ order: 0, passed: [], exited0: ['npm test'], ran: ['npm test'] }]).kept).toContain(swallowed);
  });

  it('never a preference, and never from the same run', () => {
    const pref = entry('preference', 'The user stated in the task: “Always run `micromamba run -n dev pytest` before a commit.”', 1, 'r1');
    const same = entry('pitfall', chain.text, 0, 'r2');
    const { kept } = dropSuperseded([change, pref, same], [{ order: 0, passed: ['pixi run test'], exited0: ['pixi run test'], ran: ['pixi run test'] }]);
    expect(kept).toEqual([change, pref, same]);
  });
});

describe('an ignore-file line does not split a chain', () => {
  it('install, a cache directory ignored, then the variable in front: one entry with both', () => {
    const b = new TranscriptBuilder('Dodaj test za parser datuma.')
      .bash('cd /workspace && npx ava', 1, "Error: Cannot find module 'ava'")
      .bash('cd /workspace && npm install --save-dev ava@6.1.3 2>&1 | tail -1', 0, 'added 120 packages')
      .bash('cd /workspace && npx ava', 1, "Error: EACCES: permission denied, mkdir '/home/agent/.cache/ava'")
      .bash("cd /workspace && echo '.cache/' >> .gitignore && npx ava", 1, "Error: EACCES: permission denied, mkdir '/home/agent/.cache/ava'")
      .bash('cd /workspace && XDG_CACHE_HOME=/workspace/.cache npx ava', 0, '12 tests passed')
      .say('Test dodan; svi testovi prolaze.');
    const texts = extractDeterministic(viewRollout(b.end('completed'), 'r')).map((m) => m.text);
    const chain = texts.filter((t) => t.includes('npm install --save-dev ava@6.1.3'));
    expect(chain).toHaveLength(1);
    expect(chain[0]).toContain('XDG_CACHE_HOME=/workspace/.cache npx ava');
  });
});

describe('a lasting rule beside a one-off in more languages', () => {
  const prefs = (b: TranscriptBuilder) => extractDeterministic(viewRollout(b.end('completed'), 'r')).filter((m) => m.kind === 'preference').map((m) => m.text);
  it.each([
    ['Kyrgyz', 'Мындан ары `cargo deny check` иштетиңиз. Бул жолу `CHANGELOG.md` өзгөртпөңүз.', 'cargo deny check', 'CHANGELOG.md'],
    ['Malagasy', "Aza mihitsy manova `vendor/` tanana. Amin'izao fotoana izao, avelao ny `docs/api.md`.", 'vendor/', 'docs/api.md'],
    ['Faroese', 'Altíð koyr `mix credo --strict` áðrenn tú gevst. Hesaferð skalt tú ikki broyta `mix.lock`.', 'mix credo --strict', 'mix.lock'],
  ])('%s', (_, said, kept, oneOff) => {
    const b = new TranscriptBuilder('Fix the off-by-one in the pager.')
      .edit('/workspace/src/pager.rs')
      .user(said)
      .bash('cd /workspace && cargo test -q', 0, 'test result: ok. 9 passed')
      .say('Fixed.');
    const p = prefs(b);
    expect(p.some((t) => t.includes(kept))).toBe(true);
    expect(p.some((t) => t.includes(oneOff))).toBe(false);
  });
});

describe('a flake the user says they fixed, naming its file in the task', () => {
  const note = entry('procedure', 'Noted by the agent at the end of a run (Add paging): “`test/clock_test.exs` ("expires after ttl") is flaky: it depends on wall-clock time and fails now and then.”', 1, 'r1');
  const outcome = (task: string, passed: string[]) => ({ rolloutId: 'r2', order: 0, task, outcome: 'completed', passed, exited0: passed, ran: passed, deleted: [], changed: ['lib/pager.ex'] });
  it('retired when the newer task names `test/clock_test.exs` and its tests pass', () => {
    const r = closeFinishedTasks([note], [outcome('Tulifanya `test/clock_test.exs` kuwa thabiti kwa saa bandia. Sasa ongeza ukurasa wa pili.', ['mix test'])] as never);
    expect(r.kept).toEqual([]);
    expect(r.fixed[0]!.tests).toEqual(['test/clock_test.exs']);
  });
  it('kept when the task does not name it, or nothing passed', () => {
    expect(closeFinishedTasks([note], [outcome('Ongeza ukurasa wa pili.', ['mix test'])] as never).kept).toEqual([note]);
    expect(closeFinishedTasks([note], [outcome('Tulifanya `test/clock_test.exs` kuwa thabiti.', [])] as never).kept).toEqual([note]);
  });
});
