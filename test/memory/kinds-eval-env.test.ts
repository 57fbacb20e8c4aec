import { describe, expect, it } from 'vitest';
import { extractDeterministic } from '../../src/memory/phase1/deterministic/index.js';
import { viewRollout } from '../../src/memory/phase1/rollout.js';
import { splitCommand } from '../../src/memory/phase1/commands.js';
import { TranscriptBuilder } from './phase1/build.js';

// `eval $(tool env)` runs what a tool printed in the agent's shell to set its environment (opam, rbenv, pyenv,
// direnv): it is environment setup, so the command it got past its first error is a lesson even in a run cut short.
describe('eval of a tool’s output is environment setup', () => {
  it('is classified as env', () => {
    expect(splitCommand('eval "$(rbenv init - bash)"')[0]!.category).toBe('env');
  });

  it('a failure that the eval got past becomes a "needs … first" lesson', () => {
    const b = new TranscriptBuilder('Fix the rounding in Invoice#total.')
      .bash('cd /workspace && bundle exec rake spec', 1, 'Error: Your Ruby version is 3.0.6, but your Gemfile specified 3.3.1')
      .bash('cd /workspace && eval "$(rbenv init - bash)" && bundle exec rake spec', 1, 'Failures:\n  1) Invoice#total rounds half up\n3 examples, 1 failure');
    const texts = extractDeterministic(viewRollout(b.end('max_turns'), 'r')).map((m) => m.text);
    expect(texts.some((t) => t.includes('needs `eval "$(rbenv init - bash)"` first'))).toBe(true);
  });
});
