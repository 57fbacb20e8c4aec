import { describe, expect, it } from 'vitest';
import { extractDeterministic } from '../../src/memory/phase1/deterministic/index.js';
import { viewRollout } from '../../src/memory/phase1/rollout.js';
import { TranscriptBuilder } from './phase1/build.js';

// New-user trial, second round (issue 12 item 5): what counts as the fix of a failure.
const view = (b: TranscriptBuilder) => viewRollout(b.end(), 'r');
const LINT_FAIL = 'golangci-lint run ./...\ninternal/post/post.go:61:9: Error return value of `rows.Close` is not checked (errcheck)\nmake: *** [Makefile:9: lint] Error 1';

describe('a fix runs where the failure ran', () => {
  it('`make lint` failing in one package is not fixed by a lint run in another directory', () => {
    const b = new TranscriptBuilder('Fix the lint errors in services/ledger.')
      .bash('cd /workspace/services/ledger && make lint', 2, LINT_FAIL)
      .bash('cd /workspace/web && pnpm run lint', 0, '> web@0.3.0 lint\n> eslint src');
    const v = view(b);
    expect(extractDeterministic(v).filter((m) => /What worked|needs/.test(m.text))).toEqual([]);
  });

  it('the shell keeps its directory: a bare command after `cd web` runs in web; another --filter is another package', () => {
    const b = new TranscriptBuilder('x')
      .bash('cd /workspace/services/api && make lint', 2, LINT_FAIL)
      .bash('cd /workspace/web', 0, '')
      .bash('make lint', 0, 'ok')
      .bash('pnpm --filter api run lint', 1, 'ERR_PNPM_RECURSIVE_RUN_FIRST_FAIL api lint: eslint src\n1 error')
      .bash('pnpm --filter web run lint', 0, 'ok');
    expect(extractDeterministic(view(b)).filter((m) => /What worked|needs/.test(m.text))).toEqual([]);
  });

  it('the same check in the same place by another route still is the fix', () => {
    const b = new TranscriptBuilder('x')
      .bash('cd /workspace/web && eslint src', 127, 'bash: eslint: command not found')
      .bash('cd /workspace/web && npm run lint', 0, '> web@0.3.0 lint\n> eslint src');
    expect(extractDeterministic(view(b)).some((m) => /What worked: `(cd \/workspace\/web && )?npm run lint`/.test(m.text))).toBe(true);
    const elsewhere = new TranscriptBuilder('x')
      .bash('cd /workspace/web && eslint src', 127, 'bash: eslint: command not found')
      .bash('cd /workspace/docs && npm run lint', 0, '> docs@0.1.0 lint\n> eslint .');
    expect(extractDeterministic(view(elsewhere)).some((m) => /What worked/.test(m.text))).toBe(false);
  });
});

describe('a one-time edit of the repository is never a procedure', () => {
  it('sed -i on one file, or an editor edit of a tracked config, between the failure and the same command passing', () => {
    const sed = new TranscriptBuilder('x')
      .bash('cd /workspace && make lint', 2, 'ruff: error: unknown rule selector `E999`\nmake: *** [Makefile:4: lint] Error 2')
      .bash("cd /workspace && sed -i 's/E999/E9/' pyproject.toml", 0, '')
      .bash('cd /workspace && make lint', 0, 'All checks passed!');
    expect(extractDeterministic(view(sed)).filter((m) => m.kind === 'procedure')).toEqual([]);
    const edit = new TranscriptBuilder('x')
      .bash('make lint', 2, 'ruff: error: unknown rule selector `E999`\nmake: *** [Makefile:4: lint] Error 2')
      .edit('/workspace/.golangci.yml')
      .bash('make lint', 0, 'ok');
    expect(extractDeterministic(view(edit)).filter((m) => m.kind === 'procedure')).toEqual([]);
  });

  it('a real setup step stays a procedure, the one-time edit beside it named as such', () => {
    const b = new TranscriptBuilder('x')
      .bash('cargo test', 101, 'error: linker `cc` not found')
      .bash('sudo apt-get install -y clang', 0, 'Setting up clang (1:14.0-55.7)')
      .edit('/workspace/Cargo.toml')
      .bash('cargo test', 0, 'test result: ok. 12 passed');
    const [p] = extractDeterministic(view(b)).filter((m) => m.kind === 'procedure');
    expect(p?.text).toMatch(/needs `sudo apt-get install -y clang` first/);
    expect(p?.text).toMatch(/one-time change: changing Cargo\.toml/);
  });
});
