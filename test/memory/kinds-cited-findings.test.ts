import { describe, expect, it } from 'vitest';
import { extractRollout } from '../../src/memory/phase1/index.js';
import { TranscriptBuilder } from './phase1/build.js';

const extract = async (records: ReturnType<TranscriptBuilder['end']>) => extractRollout({ records, transcriptPath: 'sessions/r-test.jsonl', mode: 'deterministic' });
const constraintFact = (ms: Array<{ kind: string; text: string }>) => ms.find((m) => m.kind === 'fact' && m.text.startsWith('Found by a run that did not finish'));

// Issue 12 item 3: what a run that stopped itself found is kept in any language, known by what a sentence
// cites from the run (a command it ran, a path outside the workspace, a version an output printed), not by
// its words. Written in languages none of the word lists know.
describe('findings of a run that stopped itself are known by the evidence they cite', () => {
  it('Estonian, Gradle: the cited findings become a fact; the changed file, the opener and the question stay out', async () => {
    const b = new TranscriptBuilder('Lisa arvele käibemaksu rida ja käivita testid.')
      .bash('./gradlew test', 1, 'Downloading https://services.gradle.org/distributions/gradle-8.7-bin.zip\nException in thread "main" java.net.UnknownHostException: services.gradle.org')
      .bash('ls /opt/gradle', 0, 'gradle-8.5')
      .bash('sdk install java 21', 1, 'curl: (6) Could not resolve host: api.sdkman.io')
      .edit('/workspace/src/main/java/ee/arved/Arve.java')
      .say(
        'Testid jäid käivitamata, ülesanne pole lõpetatud.\n\nPõhjus: `./gradlew` tahab alla laadida Gradle 8.7, aga services.gradle.org pole kättesaadav. Kaustas /opt/gradle on ainult gradle-8.5. Ummiktee: `sdk install java 21`.\n\nMuudetud: `Arve.java` on kirjutatud, kuid kontrollimata. Kas tohib kasutada kohalikku Gradle\'it?',
      );
    const e = await extract(b.end('error'));
    const fact = constraintFact(e.memories);
    expect(fact?.text).toContain('Põhjus: `./gradlew` tahab alla laadida Gradle 8.7');
    expect(fact!.text).toContain('Kaustas /opt/gradle on ainult gradle-8.5.');
    expect(fact!.text).toContain('Ummiktee: `sdk install java 21`.');
    expect(fact!.text).not.toContain('Testid jäid');
    expect(fact!.text).not.toContain('Arve.java');
    expect(fact!.text).not.toContain('kohalikku');
  });

  it('Georgian, Rails: a numbered plan that names the run\'s command stays with the unfinished task', async () => {
    const plan = 'გეგმა: (1) `bundle exec rspec` ხელახლა; (2) მიგრაციის დამატება.';
    const cited = 'მიზეზი: `bin/rails db:prepare` ითხოვს PostgreSQL 16, სურათში კი 14.11 არის.';
    const b = new TranscriptBuilder('დაამატე ველი invoices ცხრილში.')
      .bash('psql --version', 0, 'psql (PostgreSQL) 14.11')
      .bash('bin/rails db:prepare', 1, 'PG::ConnectionBad: server version 14.11 is too old')
      .bash('bundle exec rspec', 1, '3 examples, 3 failures')
      .say(`${cited} ${plan}`);
    const e = await extract(b.end('error'));
    const fact = constraintFact(e.memories);
    expect(fact?.text).toContain(cited);
    expect(fact!.text).not.toContain('გეგმა');
    expect(e.memories.find((m) => m.kind === 'task_state')?.text).toContain(plan);
  });

  it('a sentence that cites nothing the run ran or printed gives no fact', async () => {
    const b = new TranscriptBuilder('Paranda vorm.').bash('npm test', 1, '1 failing').say('Ülesanne jäi pooleli. Vormi kujundus vajab veel tööd, versioon 9.9 oleks parem.');
    expect(constraintFact((await extract(b.end('error'))).memories)).toBeUndefined();
  });
});
