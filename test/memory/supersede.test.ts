import { describe, expect, it } from 'vitest';
import type { Candidate } from '../../src/memory/phase2/merge.js';
import { dropSuperseded, staleTerms } from '../../src/memory/phase2/supersede.js';
import type { MemoryKind } from '../../src/memory/types.js';

function cand(text: string, order: number, kind: MemoryKind = 'procedure', source = `r${order}`): Candidate {
  return { kind, text, sources: [source], importance: 3, at: `2026-01-${String(10 - order).padStart(2, '0')}`, order, count: 1, ids: new Set([`m-${order}`]), keywords: [] };
}

function stale(cs: Candidate[]): string[] {
  return dropSuperseded(cs).superseded.map((s) => s.stale.text);
}

describe('dropSuperseded', () => {
  it('drops an older entry whose command the newer one says failed', () => {
    const old = cand('Install the dependencies with `npm ci`.', 1);
    expect(stale([cand('`npm ci` now fails (EUSAGE); use `pnpm install --frozen-lockfile`.', 0, 'pitfall'), old])).toEqual([old.text]);
  });

  it('drops an older entry when the newer one says the project moved from X to Y', () => {
    const old = cand('Run npm run lint before pushing.', 1);
    const keep = cand('pnpm and npm both need `--offline` here.', 2);
    expect(stale([cand('The repo switched from npm to pnpm in October.', 0, 'fact'), old, keep])).toEqual([old.text]);
  });

  it('drops the same command run by another tool', () => {
    const old = cand('Run the unit tests with `npm run test:unit`.', 1, 'pitfall');
    expect(stale([cand('Run the tests with `pnpm run test:unit` (passed).', 0), old])).toEqual([old.text]);
  });

  it('drops the same tool with other arguments about the same subject', () => {
    const old = cand('Build the renderer with `cmake --build build -j16`.', 1, 'pitfall');
    expect(stale([cand('Build the renderer with `cmake --build build -j4`.', 0, 'pitfall'), old])).toEqual([old.text]);
  });

  it('keeps different tools for the same subject, lessons of one rollout, older-over-newer, and preferences', () => {
    expect(stale([cand('Install the dependencies with `pip install -r requirements.txt`.', 0), cand('Install the dependencies with `npm ci`.', 1)])).toEqual([]);
    expect(stale([cand('`make test` failed without Docker.', 0, 'pitfall', 'same'), cand('Run `make test` for all suites.', 1, 'procedure', 'same')])).toEqual([]);
    expect(stale([cand('Install the dependencies with `npm ci`.', 0), cand('`npm ci` fails; use pnpm.', 1, 'pitfall')])).toEqual([]);
    expect(stale([cand('`black` is no longer used; run `ruff format`.', 0), cand('The user wants `black` for formatting.', 1, 'preference')])).toEqual([]);
  });
});

describe('staleTerms', () => {
  it('reads what a text declares outdated', () => {
    expect(staleTerms('We migrated from yarn to pnpm.')).toEqual([{ term: 'yarn', replacement: 'pnpm' }]);
    expect(staleTerms('`make docs` is outdated; use `mkdocs build` instead of `make docs`.').map((t) => t.term)).toEqual(['make docs', 'make docs']);
    expect(staleTerms('The service no longer uses redis.')).toEqual([{ term: 'redis' }]);
    expect(staleTerms('Run `make gen` after editing proto/.')).toEqual([]);
  });
});
