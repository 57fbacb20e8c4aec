/**
 * Issue 12, kinds found on the corpus part `heldout-l` once it was tuned on (round 18; each test failed before its
 * rule changed; the transcripts are written for these tests, with other tools and words than the corpus runs):
 * - a tool no list names, with `install` (`sync`, `restore`, `bootstrap`) as its subcommand, installs; with
 *   `run test(s)`, runs the tests;
 * - a program not on PATH that a setup command then made (its output names the folder, "linked into
 *   ~/.aftman/bin"), run through that folder: the setup command is part of the lesson;
 * - a program not on PATH run another way that then failed on its next missing piece, and passed once more setup
 *   was added: the whole chain is the lesson, not the first form;
 * - a suite rerun in a loop (a flakiness check) is not how to run the tests;
 * - a test command that passed having run no test, and later another that ran some: a pitfall naming both;
 * - a check that failed and passed when typed the same way again (setup in front both times, the code changed by
 *   a formatter in between) is a retry, no environment lesson.
 */
import { describe, expect, it } from 'vitest';
import { extractDeterministic } from '../../src/memory/phase1/deterministic/index.js';
import { splitCommand } from '../../src/memory/phase1/commands.js';
import { viewRollout } from '../../src/memory/phase1/rollout.js';
import { TranscriptBuilder } from './phase1/build.js';

const texts = (b: TranscriptBuilder) => extractDeterministic(viewRollout(b.end('completed'), 'r')).map((m) => m.text);

describe('subcommands of tools no list names', () => {
  it.each([
    ['aftman install', 'install'],
    ['foreman sync', 'install'],
    ['zap run tests', 'test'],
    ['zap run spec', 'test'],
    ['zap run build', 'other'],
    ['zap serve', 'other'],
  ])('`%s` is %s', (cmd, category) => {
    expect(splitCommand(cmd)[0]!.category).toBe(category);
  });
});

describe('a program not on PATH', () => {
  it('made by a setup command whose output names the folder: the setup joins the lesson', () => {
    const b = new TranscriptBuilder('Fix the slot bug in the quest log.')
      .bash('cd /workspace && zap run tests', 127, 'bash: zap: command not found')
      .bash('cd /workspace && aftman install', 0, 'Installing zap 0.4.2 ... done\nInstalled 2 tools into /home/agent/.aftman/bin (not on PATH)')
      .bash('cd /workspace && export PATH="$HOME/.aftman/bin:$PATH" && zap run tests', 1, '12 passed, 1 failed\n  x QuestLog > keeps slots')
      .edit('/workspace/src/QuestLog.luau')
      .bash('cd /workspace && export PATH="$HOME/.aftman/bin:$PATH" && zap run tests', 0, '13 passed, 0 failed');
    const lesson = texts(b).find((t) => t.includes('command not found'));
    expect(lesson).toMatch(/aftman install.*\.aftman\/bin.*zap run tests/);
  });

  it('a setup command whose output names nothing the form uses stays out', () => {
    const b = new TranscriptBuilder('Fix the slot bug in the quest log.')
      .bash('cd /workspace && zap run tests', 127, 'bash: zap: command not found')
      .bash('cd /workspace && aftman install', 0, 'Installed 2 tools.')
      .bash('cd /workspace && /opt/zap/bin/zap run tests', 1, '12 passed, 1 failed')
      .edit('/workspace/src/QuestLog.luau');
    const lesson = texts(b).find((t) => t.includes('command not found'));
    expect(lesson).toContain('/opt/zap/bin/zap run tests');
    expect(lesson).not.toContain('aftman install');
  });

  it('run another way, then failing on its next missing piece until more setup: the whole chain', () => {
    const b = new TranscriptBuilder('Add a tolerance option to the solver.')
      .bash('cd /workspace && fpm test', 127, 'bash: fpm: command not found')
      .bash('cd /workspace && source /opt/intel/oneapi/setvars.sh && fpm test', 1, ':: oneAPI environment initialized ::\n<ERROR> Compilation failed: FPM_FC is not set and gfortran is not installed')
      .bash('cd /workspace && source /opt/intel/oneapi/setvars.sh && export FPM_FC=ifx && fpm test', 0, ' All 14 tests passed.')
      .edit('/workspace/src/solver.f90');
    const lesson = texts(b).find((t) => t.includes('command not found'));
    expect(lesson).toMatch(/setvars\.sh.*FPM_FC=ifx.*fpm test/);
  });
});

describe('the suite rerun in a loop', () => {
  it('is a flakiness check, not how to run the tests', () => {
    const b = new TranscriptBuilder('Make the clock test deterministic.')
      .edit('/workspace/tests/clock_spec.lua')
      .bash('cd /workspace && for i in $(seq 1 10); do ./run-specs.sh 2>&1 | tail -n 1; done | sort | uniq -c', 0, '     10 21 passed, 0 failed');
    expect(texts(b).filter((t) => t.startsWith('Run the tests with'))).toEqual([]);
    const once = new TranscriptBuilder('Make the clock test deterministic.').edit('/workspace/tests/clock_spec.lua').bash('cd /workspace && ./run-specs.sh', 0, '21 passed, 0 failed');
    expect(texts(once).filter((t) => t.startsWith('Run the tests with'))).toHaveLength(1);
  });
});

describe('a test command that ran no test', () => {
  it('and exited 0, while another ran the suite: a pitfall naming both', () => {
    const b = new TranscriptBuilder('Add a withdraw limit to the vault contract.')
      .bash('cd /workspace && forc test; echo "exit=$?"', 0, '  Compiling vault\n   Running 0 tests\n test result: OK. 0 passed; 0 failed\nexit=0')
      .bash('cd /workspace && forc test --workspace', 0, '   Running 9 tests\n test result: OK. 9 passed; 0 failed');
    const lesson = texts(b).find((t) => t.includes('runs no tests'));
    expect(lesson).toBe('`forc test` runs no tests in this repository and exits 0 (its output said “Running 0 tests”): the tests run with `forc test --workspace`.');
  });

  it('is no lesson when nothing else ran tests, or the suite really is empty everywhere', () => {
    const alone = new TranscriptBuilder('Add a withdraw limit.').bash('cd /workspace && forc test', 0, 'Running 0 tests\ntest result: OK. 0 passed');
    expect(texts(alone).filter((t) => t.includes('runs no tests'))).toEqual([]);
    const both = new TranscriptBuilder('Add a withdraw limit.').bash('cd /workspace && forc test', 0, 'Running 0 tests').bash('cd /workspace && forc test --release', 0, 'Running 0 tests');
    expect(texts(both).filter((t) => t.includes('runs no tests'))).toEqual([]);
  });
});

describe('a check typed the same way twice', () => {
  it('that passed after a formatter changed the code is a retry, not an environment lesson', () => {
    const b = new TranscriptBuilder('Tidy the parser module.')
      .bash('cd /workspace && export PATH="$HOME/.nimble/bin:$PATH" && nph --check src', 1, 'src/parser.nim would be reformatted')
      .bash('cd /workspace && export PATH="$HOME/.nimble/bin:$PATH" && nph src && nph --check src && nimble test', 0, '[OK] parses\n[OK] rejects\n   Success: Execution finished');
    expect(texts(b).filter((t) => t.includes('nph --check'))).toEqual([]);
  });
});
