import { describe, expect, it } from 'vitest';
import { extractDeterministic } from '../../src/memory/phase1/deterministic/index.js';
import { viewRollout } from '../../src/memory/phase1/rollout.js';
import { TranscriptBuilder } from './phase1/build.js';

// A check whose summary counts failures out of a total ("RESULT: 2 of 9 packages failed") while it exits 0 is a
// command whose exit code lies, whatever it counts; and a test run whose output went to /dev/null "passed" only by
// its exit code, so it is no evidence that the suite passes.
const texts = (b: TranscriptBuilder) => extractDeterministic(viewRollout(b.end(), 'r')).map((m) => m.text);

describe('a failure count out of a total, with status 0', () => {
  it('is a pitfall: the command exits 0 even when its checks fail', () => {
    const b = new TranscriptBuilder('Add the `retry` package to the workspace.')
      .edit('/workspace/packages/retry/src/lib.ml', 'create')
      .bash('cd /workspace && ./ci/verify-all.sh', 0, 'packages/core   OK\npackages/retry  FAILED (2 warnings as errors)\nRESULT: 2 of 9 packages failed')
      .say('Done.');
    expect(texts(b).some((t) => t.startsWith('`./ci/verify-all.sh` exits 0 even when tests fail'))).toBe(true);
  });
});

describe('a test run with its output sent to /dev/null', () => {
  it('is not recorded as a test command that passed', () => {
    const silenced = new TranscriptBuilder('Tidy the ledger module.')
      .edit('/workspace/src/ledger.ml')
      .bash('cd /workspace && ./ci/verify-all.sh >/dev/null; echo "rc=$?"', 0, 'rc=0')
      .say('Done.');
    expect(texts(silenced).filter((t) => t.startsWith('Run the tests with'))).toEqual([]);
    const shown = new TranscriptBuilder('Tidy the ledger module.')
      .edit('/workspace/src/ledger.ml')
      .bash('cd /workspace && ./ci/verify-all.sh', 0, 'RESULT: 9 of 9 packages OK')
      .say('Done.');
    expect(texts(shown)).toContain('Run the tests with `./ci/verify-all.sh` (passed in this workspace).');
  });
});
