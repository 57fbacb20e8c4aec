/**
 * A failing tool and a passing wrapper that do the same check (issue 12, item 5 of this round): `eslint .` fails,
 * `npm run lint` passes with no edit between → a fix. A fixer that "passes" after a check failed is not.
 */
import { describe, expect, it } from 'vitest';
import { checksOnly, jobOf } from '../../../src/memory/phase1/command-job.js';
import { splitCommand } from '../../../src/memory/phase1/commands.js';
import { extractDeterministic } from '../../../src/memory/phase1/deterministic/index.js';
import { viewRollout } from '../../../src/memory/phase1/rollout.js';
import { TranscriptBuilder } from './build.js';

const seg = (cmd: string) => splitCommand(cmd).at(-1)!;
const extract = (b: TranscriptBuilder) => extractDeterministic(viewRollout(b.end(), 'r'));

describe('jobOf / checksOnly', () => {
  it('names the check a tool, a package script or a make target runs', () => {
    expect(['npx eslint .', 'npm run lint', 'pnpm lint:ci', 'make lint', 'ruff check src', 'cargo clippy -- -D warnings', 'golangci-lint run', 'yarn run lint'].map((c) => jobOf(seg(c)))).toEqual(Array(8).fill('lint'));
    expect(['mypy src', 'tsc --noEmit -p .', 'npm run typecheck', 'make typecheck'].map((c) => jobOf(seg(c)))).toEqual(Array(4).fill('typecheck'));
    expect(['prettier --check .', 'npm run format:check', 'cargo fmt --check'].map((c) => jobOf(seg(c)))).toEqual(Array(3).fill('format'));
    expect(['npm test', 'make build', 'tsc -p .', 'npm run dev'].map((c) => jobOf(seg(c)))).toEqual(Array(4).fill(undefined));
  });

  it('a fixer is not a check', () => {
    expect(['eslint --fix .', 'npm run lint:fix', 'prettier --write .', 'black .', 'ruff check --fix'].map((c) => checksOnly(seg(c)))).toEqual(Array(5).fill(false));
    expect(['eslint .', 'npm run lint', 'prettier --check .', 'black --check .'].map((c) => checksOnly(seg(c)))).toEqual(Array(4).fill(true));
  });
});

describe('the same check by another route is a fix', () => {
  it('eslint fails, npm run lint passes: the lesson says what worked', () => {
    const m = extract(new TranscriptBuilder('lint it').bash('npx eslint .', 2, "ESLint couldn't find an eslint.config.(js|mjs|cjs) file.").bash('npm run lint', 0, '> eslint src'));
    expect(m).toHaveLength(1);
    expect(m[0]!.text).toMatch(/`npx eslint \.` failed.*What worked: `npm run lint`/);
  });

  it('mypy fails, make typecheck passes', () => {
    const m = extract(new TranscriptBuilder('types').bash('mypy .', 2, 'error: Cannot find implementation or library stub for module named "ledger"').bash('make typecheck', 0, 'Success: no issues found in 41 source files'));
    expect(m.map((x) => x.text).join('\n')).toMatch(/What worked: `make typecheck`/);
  });

  it('a failing check followed by a fixer, or by another kind of job, teaches nothing', () => {
    expect(extract(new TranscriptBuilder('fmt').bash('prettier --check .', 1, '[warn] src/a.ts\n[warn] Code style issues found in 1 file.').bash('prettier --write .', 0, 'src/a.ts 41ms'))).toEqual([]);
    expect(extract(new TranscriptBuilder('lint').bash('npm run lint', 1, '3 problems (3 errors, 0 warnings)').bash('npm run lint:fix', 0, 'fixed'))).toEqual([]);
    expect(extract(new TranscriptBuilder('mixed').bash('npx eslint .', 1, '3 problems (3 errors, 0 warnings)').bash('npm run typecheck', 0, 'ok'))).toEqual([]);
  });
});
