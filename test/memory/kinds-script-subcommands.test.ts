import { describe, expect, it } from 'vitest';
import { splitCommand } from '../../src/memory/phase1/commands.js';
import { extractRollout } from '../../src/memory/phase1/index.js';
import { TranscriptBuilder } from './phase1/build.js';

const extract = async (records: ReturnType<TranscriptBuilder['end']>) => extractRollout({ records, transcriptPath: 'sessions/r-test.jsonl', mode: 'deterministic' });

// Issue 12 kind 2 (heldout-h round 13): a script that dispatches subcommands (`manage.py`, `artisan`, `console`)
// is as many commands as it has subcommands. Taken as one command, its setup subcommand (`migrate`) passed
// "instead of" the failing test run and became the fix, and the chain across two failures split in two.
describe('a script run by an interpreter is the command, with its subcommand', () => {
  it('the interpreter runs a file with or without an extension, and the subcommand is part of the key', () => {
    const [test] = splitCommand('python3 manage.py test');
    const [migrate] = splitCommand('python3 manage.py migrate --noinput');
    const [consoleRun] = splitCommand('php bin/console cache:clear');
    const [bare] = splitCommand('ruby kasse doctor');
    expect([test!.key, migrate!.key, consoleRun!.key, bare!.key]).toEqual(['manage.py test', 'manage.py migrate', 'bin/console cache:clear', 'kasse doctor']);
    expect(test!.category).toBe('test');
  });

  it('the chain across two failures of the test run is one lesson, with the empty file it needed', async () => {
    const b = new TranscriptBuilder('Aggiungi il campo `scadenza` al modello Fattura.')
      .bash('python3 manage.py test', 1, 'django.core.exceptions.ImproperlyConfigured: Set the SECRET_KEY environment variable')
      .bash('cp contabile/settings.example.env contabile/.env && python3 manage.py genera_chiave', 0, 'chiave scritta in contabile/.env')
      .bash('python3 manage.py test', 1, 'sqlite3.OperationalError: unable to open database file\nFAILED (errors=12)')
      .bash('touch var/contabile.sqlite3 && python3 manage.py migrate --noinput && python3 manage.py test', 0, 'Applying fatture.0001_initial... OK\nRan 12 tests in 0.4s\n\nOK');
    const e = await extract(b.end('completed'));
    const fixes = e.memories.filter((m) => m.kind === 'procedure' || m.kind === 'pitfall');
    expect(fixes).toHaveLength(1);
    expect(fixes[0]!.text).toMatch(/genera_chiave[\s\S]*touch var\/contabile\.sqlite3[\s\S]*manage\.py migrate/);
    expect(fixes[0]!.text).not.toMatch(/What worked: `python3 manage\.py (genera_chiave|migrate)/);
  });

  it('a script run with a filter is not the project\'s test command', async () => {
    const b = new TranscriptBuilder('Fix the total.')
      .edit('/workspace/fatture/models.py')
      .bash('python3 manage.py test --filter=Totale', 0, 'Ran 2 tests\nOK');
    const e = await extract(b.end('completed'));
    expect(e.memories.map((m) => m.text).join('\n')).not.toContain('--filter=Totale');
    const whole = await extract(new TranscriptBuilder('Fix the total.').edit('/workspace/fatture/models.py').bash('python3 manage.py test', 0, 'Ran 12 tests\nOK').end('completed'));
    expect(whole.memories.map((m) => m.text).join('\n')).toContain('`python3 manage.py test`');
  });
});
