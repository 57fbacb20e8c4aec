import { describe, expect, it } from 'vitest';
import { extractDeterministic } from '../../src/memory/phase1/deterministic/index.js';
import { viewRollout } from '../../src/memory/phase1/rollout.js';
import { TranscriptBuilder } from './phase1/build.js';

// What the user told the run about its environment, in words no list knows (here Quechua), is a fact when the
// run saw it too: the path they named is in a tool output of the run and the final message names it again.
const facts = (b: TranscriptBuilder) =>
  extractDeterministic(viewRollout(b.end(), 'r'))
    .filter((m) => m.kind === 'fact')
    .map((m) => m.text);

describe('an environment fact the run confirmed', () => {
  const base = () =>
    new TranscriptBuilder('Build the release APK.')
      .bash('ls -d /srv/android/* 2>&1', 0, '/srv/android/sdk-35\n/srv/android/ndk-27')
      .user('Musuq imagenpiqa SDK kunan /srv/android/sdk-35 ukupi kachkan.')
      .bash('cd /workspace && ./gradlew assembleRelease', 0, 'BUILD SUCCESSFUL in 41s');

  it('keeps the clause with the path the output showed', () => {
    expect(facts(base().say('Built with the SDK under /srv/android/sdk-35.'))).toEqual([
      'The user said mid-run: “Musuq imagenpiqa SDK kunan /srv/android/sdk-35 ukupi kachkan.” (this run\'s output shows `/srv/android/sdk-35`)',
    ]);
  });

  it('not when the final message does not name it, nor for a path no output showed', () => {
    expect(facts(base().say('Built.'))).toEqual([]);
    const unseen = new TranscriptBuilder('x').bash('ls', 0, 'a').user('Cache kachkan /srv/gradle-cache ukupi.').bash('./gradlew build', 0, 'ok').say('Used /srv/gradle-cache.');
    expect(facts(unseen)).toEqual([]);
  });
});
