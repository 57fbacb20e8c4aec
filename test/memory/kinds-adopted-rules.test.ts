import { describe, expect, it } from 'vitest';
import { extractDeterministic } from '../../src/memory/phase1/deterministic/index.js';
import { viewRollout } from '../../src/memory/phase1/rollout.js';
import { TranscriptBuilder } from './phase1/build.js';

// A lasting rule typed mid-run in a language no word list knows (here Māori) is recognised by what the run did
// with it: the setting it names in code form is run by a later command that succeeds (or written by an edit, for
// a flag), and the agent's final message names it again. The one-off clause beside it stays out.
const prefs = (b: TranscriptBuilder) =>
  extractDeterministic(viewRollout(b.end(), 'r'))
    .filter((m) => m.kind === 'preference')
    .map((m) => m.text);

describe('a rule the run adopted is a preference, whatever the language', () => {
  it('keeps the clause whose setting a later successful command ran and the final message names', () => {
    const b = new TranscriptBuilder('Tāpirihia he whakamātautau mō te tātari.')
      .bash('cd /workspace && python -m pytest tests/test_filter.py', 1, 'FAILED tests/test_filter.py::test_order - AssertionError')
      .user('Me whakamahi tonu `pytest -p no:randomly` i tēnei pūranga. Kaua e pā ki te README.md i tēnei wā.')
      .bash('cd /workspace && python -m pytest -p no:randomly tests 2>&1 | tail -2', 0, '12 passed in 0.41s')
      .say('Kua oti: ka paahi katoa ki `pytest -p no:randomly` (12 passed).');
    expect(prefs(b)).toEqual(['The user said mid-run: “Me whakamahi tonu `pytest -p no:randomly` i tēnei pūranga.” (applied as `python -m pytest -p no:randomly tests`)']);
  });

  it('a flag shaped word the agent wrote into a build file counts; the command after need not name it', () => {
    const b = new TranscriptBuilder('Whakatikaina te hanga.')
      .user('Whakamahia te --strict-warnings mō ngā hanga katoa.')
      .tool('str_replace_based_edit_tool', { command: 'str_replace', path: '/workspace/build.mk', old_str: 'CFLAGS := -O2', new_str: 'CFLAGS := -O2 --strict-warnings' }, 'ok')
      .bash('make all', 0, 'ok')
      .say('Kua tāpirihia a --strict-warnings ki build.mk.');
    expect(prefs(b)).toEqual(['The user said mid-run: “Whakamahia te --strict-warnings mō ngā hanga katoa.” (applied as `CFLAGS := -O2 --strict-warnings`)']);
  });

  it('not kept: a setting never run successfully, one the final message does not name, a renamed identifier, a file', () => {
    const failedOnly = new TranscriptBuilder('x')
      .user('Whakamahia `cargo nextest run`.')
      .bash('cargo nextest run', 101, 'error: no such command: nextest')
      .say('`cargo nextest run` is not installed.');
    expect(prefs(failedOnly)).toEqual([]);
    const notRestated = new TranscriptBuilder('x').user('Whakamahia `go test -count=1 ./...`.').bash('go test -count=1 ./...', 0, 'ok').say('Done.');
    expect(prefs(notRestated)).toEqual([]);
    const renamed = new TranscriptBuilder('x')
      .user('Tapaina anō `load_cfg` hei `read_settings`.')
      .bash('grep -rn read_settings src', 0, 'src/a.py:3:def read_settings():')
      .say('Renamed to `read_settings`.');
    expect(prefs(renamed)).toEqual([]);
    const file = new TranscriptBuilder('x').user('Kaua e pā ki `setup.cfg`.').bash('python -m build setup.cfg', 0, 'ok').say('Left `setup.cfg` alone.');
    expect(prefs(file)).toEqual([]);
  });
});
