import { describe, expect, it } from 'vitest';
import { extractDeterministic } from '../../src/memory/phase1/deterministic/index.js';
import { viewRollout } from '../../src/memory/phase1/rollout.js';
import { staleTerms } from '../../src/memory/phase2/supersede.js';
import { TranscriptBuilder } from './phase1/build.js';

// A switch of the test command said in words no list knows (here Hawaiian), read from the run: the user named
// `mix test --only unit` mid-run, the run never ran it, it tested with another command that passed, and the final
// message names the old command again. The fact says "instead of `…`", which phase 2 reads as the stale term.
const facts = (b: TranscriptBuilder) =>
  extractDeterministic(viewRollout(b.end(), 'r'))
    .filter((m) => m.kind === 'fact')
    .map((m) => m.text);

describe('a test command the user named and the run left behind', () => {
  const base = () =>
    new TranscriptBuilder('Hoʻohui i kahi hoʻāʻo no ka helu ʻauhau.')
      .user('ʻAʻole mākou e hoʻohana hou i `mix test --only unit`. Aia nā hoʻāʻo a pau ma `bin/check`.')
      .edit('/workspace/lib/tax.ex')
      .bash('cd /workspace && ./bin/check --fast', 0, '58 tests, 0 failures');

  it('is a fact naming the command used instead, which phase 2 reads as the old term', () => {
    const [fact, ...rest] = facts(base().say('Ua hala nā hoʻāʻo me `./bin/check --fast` (ʻaʻole me `mix test --only unit`).'));
    expect(rest).toEqual([]);
    expect(fact).toContain('instead of `mix test --only unit`');
    expect(staleTerms(fact!).map((t) => t.term)).toContain('mix test --only unit');
  });

  it('is nothing when the run ran it, or the final message does not name it', () => {
    expect(facts(base().bash('mix test --only unit', 0, '12 tests, 0 failures').say('`mix test --only unit` and `./bin/check --fast` pass.'))).toEqual([]);
    expect(facts(base().say('Done.'))).toEqual([]);
  });
});
