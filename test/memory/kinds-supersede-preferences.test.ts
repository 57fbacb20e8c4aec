import { describe, expect, it } from 'vitest';
import { extractRollout } from '../../src/memory/phase1/index.js';
import type { Candidate } from '../../src/memory/phase2/merge.js';
import { dropSuperseded } from '../../src/memory/phase2/supersede.js';
import type { MemoryKind } from '../../src/memory/types.js';
import { TranscriptBuilder } from './phase1/build.js';

function cand(text: string, order: number, kind: MemoryKind = 'procedure'): Candidate {
  return { kind, text, sources: [`r${order}`], importance: 3, at: `2026-01-${String(10 - order).padStart(2, '0')}`, order, count: 1, ids: new Set([`m-${order}`]), keywords: [] };
}
const stale = (cs: Candidate[], outcomes: Array<{ order: number; passed: string[] }> = []) => dropSuperseded(cs, outcomes).superseded.map((s) => s.stale.text);

describe('issue 12, kind 1: the newer fact wins only on a real contradiction', () => {
  it('a later failure that mentions an older pitfall’s or unfinished work’s command retires neither', () => {
    const env = cand('Go on PATH is 1.19: `export PATH=/opt/go/bin:$PATH && go build ./...` works. `go build ./...` failed without it.', 2, 'pitfall');
    const task = cand('Unfinished (stopped at the turn limit): idle timeout. Unresolved: `go build ./...` failed.', 1, 'task_state');
    const later = cand('In this environment `go build ./...` failed: “not enough arguments”. What worked: `go build ./cmd/...`.', 0, 'pitfall');
    expect(stale([later, env, task])).toEqual([]);
  });

  it('a later run in which the command passed retires a pitfall that only says it failed', () => {
    const old = cand('`head -5 /data/jobs.csv` failed: “Permission denied”.', 1, 'pitfall');
    expect(stale([old], [{ order: 0, passed: ['head -5 /data/jobs.csv'] }])).toEqual([old.text]);
    expect(stale([old], [{ order: 0, passed: ['head -3 /data/other.csv'] }])).toEqual([]);
    expect(stale([old], [{ order: 2, passed: ['head -5 /data/jobs.csv'] }])).toEqual([]); // an older success says nothing
  });

  it('switches, migrations and “no longer” in several languages retire the older entry', () => {
    const pg = cand('Before rspec: `sudo service postgresql start && bin/rails db:test:prepare`.', 1);
    expect(stale([cand('The user said the repository changed: “the specs no longer need Postgres.”', 0, 'fact'), pg])).toEqual([pg.text]);
    const libpq = cand('psycopg2 needs `sudo apt-get install -y libpq-dev`; PostgreSQL client headers.', 1);
    expect(stale([cand('The user said the repository changed: “数据库已经从 PostgreSQL 迁移到 MySQL 了”', 0, 'fact'), libpq])).toEqual([libpq.text]);
    const jest = cand('Run the tests with `npx jest -c jest.unit.config.js`.', 1);
    expect(stale([cand('The user said the repository changed: “Jest is gone — we switched to Vitest.”', 0, 'fact'), jest])).toEqual([jest.text]);
    const de = cand('Run the linter with `flake8 src`.', 1);
    expect(stale([cand('Das Projekt ist von flake8 auf ruff umgestellt worden.', 0, 'fact'), de])).toEqual([de.text]);
    const ja = cand('Use `yarn install` to install.', 1);
    expect(stale([cand('パッケージ管理は yarn から pnpm に移行しました。', 0, 'fact'), ja])).toEqual([ja.text]);
  });
});

const prefsOf = async (b: TranscriptBuilder) =>
  (await extractRollout({ records: b.end(), transcriptPath: 'sessions/r-test.jsonl', mode: 'deterministic' })).memories.filter((m) => m.kind === 'preference' || m.kind === 'fact');

describe('issue 12, kind 4: only durable preferences become preferences', () => {
  it('one-off instructions in the task or mid-run stay out of memory', async () => {
    const b = new TranscriptBuilder("Add credit notes to the export. Don't push; I'll open the PR myself.")
      .bash('./gradlew test', 0, 'BUILD SUCCESSFUL')
      .user('Leave the vendored files alone for now.')
      .bash('git status', 0, '')
      .user("Don't bump the version this time.");
    expect(await prefsOf(b)).toEqual([]);
  });

  it('a durable preference keeps its lasting clause, not the one-off order beside it', async () => {
    const b = new TranscriptBuilder('Add a region filter.')
      .bash('black src/a.py', 0, 'reformatted src/a.py')
      .user('We use ruff, not black, in this repo — reformat that file with ruff and keep using it.');
    const [p] = await prefsOf(b);
    expect(p?.kind).toBe('preference');
    expect(p?.text).toContain('We use ruff, not black, in this repo');
    expect(p?.text).not.toContain('reformat that file');
  });

  it('lasting words in other languages are preferences; a change of the repository is a fact', async () => {
    const b = new TranscriptBuilder('给 scheduler 增加优先级')
      .bash('go test ./...', 0, 'ok')
      .user('以后提交前都先跑 `make lint`。')
      .bash('go test ./...', 0, 'ok')
      .user('FYI the test database is SQLite now, the specs no longer need Postgres.');
    const got = await prefsOf(b);
    expect(got.map((m) => m.kind)).toEqual(['preference', 'fact']);
    expect(got[0]!.text).toContain('make lint');
  });
});
