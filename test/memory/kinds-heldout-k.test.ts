/**
 * Issue 12, kinds found on the corpus part `heldout-k` once it was tuned on (each test failed before its rule
 * changed; the transcripts are written for these tests, with other tools and words than the corpus runs):
 * - a tool no list names, run with `test` as its subcommand (`pdk test unit`, `zef test .`), runs the tests; so
 *   does `make verify`;
 * - the failed-test report of PDK (`failed: rspec: ./spec/x_spec.rb:9:`) and Dafny (`Verification of 'M' timed out`);
 * - a test that failed and then did not fail on an identical rerun while the rerun still failed for another
 *   reason is flaky; one the rerun never reached (it stopped earlier) is not;
 * - a script the user named as the way to run the tests ("run tests with `./ci/all.sh`", in any language), run
 *   and passed, is the test command, stated in mnemara's words even when the user's quoted rule names it too;
 * - a package script given a pattern after `--` (`npm run test:unit -- cartTotals`) ran part of the suite: no
 *   test-command lesson;
 * - a program not on PATH, then run another way that started (the tool's jar through `java`, a path given to
 *   make), is a lesson even when that run then failed for a reason of the code.
 */
import { describe, expect, it } from 'vitest';
import { extractDeterministic } from '../../src/memory/phase1/deterministic/index.js';
import { failedTestNames } from '../../src/memory/phase1/deterministic/flaky.js';
import { splitCommand } from '../../src/memory/phase1/commands.js';
import { viewRollout } from '../../src/memory/phase1/rollout.js';
import { TranscriptBuilder } from './phase1/build.js';

const extract = (b: TranscriptBuilder) => extractDeterministic(viewRollout(b.end('completed'), 'r'));

describe('test commands by their form', () => {
  it.each([
    ['pdk test unit', 'test'],
    ['FIXTURES_YML=.fixtures.local.yml pdk test unit', 'test'],
    ['zef test .', 'test'],
    ['make verify', 'test'],
    ['pdk validate', 'other'],
    ['kubectl get pods', 'other'],
  ])('`%s` is %s', (cmd, category) => {
    expect(splitCommand(cmd)[0]!.category).toBe(category);
  });
});

describe('failed test names of PDK and Dafny', () => {
  it('reads each report', () => {
    expect(failedTestNames('failed: rspec: ./spec/classes/web_spec.rb:21: expected that the catalogue would contain File[/etc/web.conf]\n  web is expected to contain File[/etc/web.conf]')).toEqual(['./spec/classes/web_spec.rb:21']);
    expect(failedTestNames("src/Queue.dfy(10,2): Error: Verification of 'Queue.Push' timed out after 30 seconds.\nsrc/Queue.dfy(22,4): Error: a postcondition could not be proved")).toEqual(['Queue.Push']);
  });
});

describe('a test that fails, then not, on an identical rerun that still fails', () => {
  const timeout = "src/Queue.dfy(10,2): Error: Verification of 'Queue.Push' timed out after 30 seconds.\n";
  const proof = 'src/Queue.dfy(22,4): Error: a postcondition could not be proved on this return path\n';
  it('is flaky, named, with the command', () => {
    const b = new TranscriptBuilder('prove Pop')
      .bash('make verify', 4, `${timeout}${proof}Dafny program verifier finished with 11 verified, 2 errors`)
      .say('Push timed out; running the same thing again to see whether that is load.')
      .bash('cat Makefile', 0, 'verify:\n\tdafny verify src/*.dfy')
      .bash('make verify', 4, `${proof}Dafny program verifier finished with 12 verified, 1 error`);
    const m = extract(b).filter((x) => /flaky/i.test(x.text));
    expect(m).toHaveLength(1);
    expect(m[0]!.text).toMatch(/`Queue\.Push`.*`make verify`/);
  });
  it('is not flaky when the rerun stopped before it (another error), or the code changed between', () => {
    const stopped = new TranscriptBuilder('prove Pop')
      .bash('make verify', 4, `${timeout}${proof}Dafny program verifier finished with 11 verified, 2 errors`)
      .bash('make verify', 2, 'src/Queue.dfy(3,1): Error: unresolved identifier: Nod\n1 resolution/type errors detected in Queue.dfy');
    expect(extract(stopped).some((x) => /flaky/i.test(x.text))).toBe(false);
    const edited = new TranscriptBuilder('prove Pop')
      .bash('make verify', 4, `${timeout}${proof}Dafny program verifier finished with 11 verified, 2 errors`)
      .edit('/workspace/src/Queue.dfy')
      .bash('make verify', 4, `${proof}Dafny program verifier finished with 12 verified, 1 error`);
    expect(extract(edited).some((x) => /flaky/i.test(x.text))).toBe(false);
  });
});

describe('the test command the user named', () => {
  it('a script named as the tests in a Swahili task, run and passed, is the test command', () => {
    const b = new TranscriptBuilder('Kuanzia sasa endesha tests kwa `./ci/all.sh` — inaanzisha hifadhidata yake yenyewe. Ongeza kazi ya `reset`.')
      .edit('/workspace/src/reset.c', 'create')
      .bash('./ci/all.sh 2>&1 | tail -3', 0, 'test basic ... ok\ntest reset ... ok\nAll 2 tests passed.');
    expect(extract(b).map((x) => x.text)).toContain('Run the tests with `./ci/all.sh` (passed in this workspace).');
  });
  it('a script named for something else, or not run, is not', () => {
    const other = new TranscriptBuilder('Deploy with `./ci/ship.sh` once the build is green.').bash('./ci/ship.sh', 0, 'shipped');
    expect(extract(other).some((x) => x.text.startsWith('Run the tests with'))).toBe(false);
    const nextClause = new TranscriptBuilder('Deploy with `./ci/ship.sh`. Tests are green already.').bash('./ci/ship.sh', 0, 'shipped');
    expect(extract(nextClause).some((x) => x.text.startsWith('Run the tests with'))).toBe(false);
    const notRun = new TranscriptBuilder('From now on run tests with `./ci/all.sh`.').bash('make', 0, 'ok');
    expect(extract(notRun).some((x) => x.text.startsWith('Run the tests with'))).toBe(false);
  });
});

describe('a package script given a pattern after --', () => {
  it('ran part of the suite: no lesson; options after -- keep the whole suite', () => {
    const part = new TranscriptBuilder('fix the cart totals').bash('npm run test:unit -- cartTotals', 0, 'Tests: 4 passed, 4 total');
    expect(extract(part).some((x) => x.text.startsWith('Run the tests with'))).toBe(false);
    const whole = new TranscriptBuilder('fix the cart totals').bash('npm run test:unit -- --coverage', 0, 'Tests: 212 passed, 212 total');
    expect(extract(whole).map((x) => x.text)).toContain('Run the tests with `npm run test:unit -- --coverage` (passed in this workspace).');
  });
});

describe('a program not on PATH, then run another way', () => {
  it('the way it runs is the lesson, even when that run found a real error', () => {
    const b = new TranscriptBuilder('check the new invariant')
      .bash('alloy check model.als', 127, 'bash: alloy: command not found')
      .bash('ls /opt/alloy', 0, 'org.alloytools.alloy.dist.jar')
      .bash('java -jar /opt/alloy/org.alloytools.alloy.dist.jar exec -c NoOrphans model.als', 1, 'Counterexample found: NoOrphans');
    const m = extract(b).filter((x) => x.text.includes('not on PATH'));
    expect(m.map((x) => x.text)).toEqual(['`alloy` is not on PATH in this environment (“bash: alloy: command not found”); it runs as `java -jar /opt/alloy/org.alloytools.alloy.dist.jar exec -c NoOrphans model.als`.']);
  });
  it('a name the shell could not find inside make, then given to make by its path', () => {
    const b = new TranscriptBuilder('prove it')
      .bash('make prove', 127, 'why3 prove -P z3 src/*.mlw\nmake: why3: No such file or directory\n/bin/sh: 1: why3: not found')
      .bash('make prove WHY3=/opt/why3/bin/why3', 0, 'all goals proved');
    expect(extract(b).some((x) => x.text.includes('`why3` is not on PATH') && x.text.includes('WHY3=/opt/why3/bin/why3'))).toBe(true);
  });
  it('nothing when the later command only looks (which, ls) or also fails to start', () => {
    const looked = new TranscriptBuilder('x').bash('alloy6 check m.als', 127, 'bash: alloy6: command not found').bash('ls /opt | grep -i alloy6', 1, '');
    expect(extract(looked).some((x) => x.text.includes('not on PATH'))).toBe(false);
    const again = new TranscriptBuilder('x').bash('alloy6 check m.als', 127, 'bash: alloy6: command not found').bash('/usr/local/bin/alloy6 check m.als', 127, 'bash: /usr/local/bin/alloy6: No such file or directory');
    expect(extract(again).some((x) => x.text.includes('not on PATH'))).toBe(false);
  });
});
