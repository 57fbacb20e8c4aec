import { describe, expect, it } from 'vitest';
import { extractDeterministic } from '../../src/memory/phase1/deterministic/index.js';
import { viewRollout } from '../../src/memory/phase1/rollout.js';
import { TranscriptBuilder } from './phase1/build.js';

// New-user trial, second round (issue 12 items 1 and 4): only durable wording makes a preference, wherever
// it was typed; a statement that the repository changed is a fact, in the task and the final message too.
const extract = (b: TranscriptBuilder) => extractDeterministic(viewRollout(b.end(), 'r'));
const prefs = (b: TranscriptBuilder) => extract(b).filter((m) => m.kind === 'preference').map((m) => m.text);
const facts = (b: TranscriptBuilder) => extract(b).filter((m) => m.kind === 'fact').map((m) => m.text);

describe('item 1: only durable wording makes a preference', () => {
  it('a message typed mid-run that only steers this run is no preference (en, de, ja)', () => {
    const b = new TranscriptBuilder('Fix the parser.')
      .bash('ls', 0, 'a')
      .user("rename foo to parse_header and don't push this branch")
      .user('Bitte committe das noch nicht.')
      .user('`parse_cfg` を `parse_config` にリネームして。あと、このブランチはプッシュしないで。');
    expect(prefs(b)).toEqual([]);
  });

  it('a one-off prohibition in the task is not stored; the durable sentence beside it is, alone', () => {
    const b = new TranscriptBuilder('空ファイルで panic しないようにしてください。今回は main にプッシュしないでください。今後は常に `cargo clippy -- -D warnings` を通してからコミットしてください。').bash('ls', 0, '');
    expect(prefs(b)).toEqual(['The user stated in the task: “今後は常に `cargo clippy -- -D warnings` を通してからコミットしてください。”']);
  });

  it('durable preferences in the task are found in English, German and Chinese', () => {
    expect(prefs(new TranscriptBuilder('Add a region filter. In this repo always use ruff, never black.').bash('ls', 0, ''))).toEqual([
      'The user stated in the task: “In this repo always use ruff, never black.”',
    ]);
    expect(prefs(new TranscriptBuilder('Neuer Filter `status`. Ab jetzt bitte immer `uv run pytest` statt `python -m pytest` benutzen.').bash('ls', 0, ''))).toEqual([
      'The user stated in the task: “Ab jetzt bitte immer `uv run pytest` statt `python -m pytest` benutzen.”',
    ]);
    expect(prefs(new TranscriptBuilder('修复登录页的样式。以后提交前都先跑 `pnpm lint`。').bash('ls', 0, ''))).toEqual(['The user stated in the task: “以后提交前都先跑 `pnpm lint`。”']);
  });

  it('a description that uses "always" is not a rule; a durable clause keeps out its one-off neighbour', () => {
    expect(prefs(new TranscriptBuilder('The job always fails on Mondays. Find out why.').bash('ls', 0, ''))).toEqual([]);
    expect(prefs(new TranscriptBuilder('Add jitter. Keep go.mod at 1.21; we support 1.21.').bash('ls', 0, ''))).toEqual(['The user stated in the task: “we support 1.21.”']);
    const b = new TranscriptBuilder('x').bash('ls', 0, '').user("From now on run `make lint` before every commit. Don't push this time, I'll open the PR myself.");
    expect(prefs(b)).toEqual(['The user said mid-run: “From now on run `make lint` before every commit.”']);
  });
});

describe('lasting wording without "always": on purpose, a rule about everything under a folder', () => {
  it('keeps those clauses and drops the order beside them', () => {
    expect(prefs(new TranscriptBuilder('CI is red. We build psycopg2 from source on purpose, so don\'t switch to psycopg2-binary. Fix the test.').bash('ls', 0, ''))).toEqual([
      'The user stated in the task: “We build psycopg2 from source on purpose, so don\'t switch to psycopg2-binary.”',
    ]);
    const b = new TranscriptBuilder('x').bash('ls', 0, '').user("Stop. Everything under vendor/ is synced from upstream by `make vendor`; hand edits get lost. Revert that.");
    expect(prefs(b)).toEqual(['The user said mid-run: “Everything under vendor/ is synced from upstream by `make vendor`”']);
  });
});

describe('item 4: a migration stated in the task or the final message is a fact', () => {
  it('Chinese in the task, German in the task, English in the agent’s final message', () => {
    expect(facts(new TranscriptBuilder('数据库已经从 PostgreSQL 迁移到 MySQL。请修复迁移脚本。').bash('ls', 0, ''))).toEqual([
      'The task states that the repository changed: “数据库已经从 PostgreSQL 迁移到 MySQL。”',
    ]);
    expect(facts(new TranscriptBuilder('Wir haben von flake8 auf ruff umgestellt. Bitte die CI anpassen.').bash('ls', 0, ''))).toEqual([
      'The task states that the repository changed: “Wir haben von flake8 auf ruff umgestellt.”',
    ]);
    const final = new TranscriptBuilder('Fix the build.').bash('pnpm install', 0, 'Done').say('Done. Note: we migrated from npm to pnpm last week, so use pnpm. I changed the test to use fake timers.');
    const withUse = new TranscriptBuilder('x').bash('ls', 0, '').user('Jest is gone, we switched to Vitest. Run `npx vitest run` instead. Also fix the flaky date test.');
    expect(facts(withUse)).toEqual(['The user said the repository changed: “Jest is gone, we switched to Vitest. Run `npx vitest run` instead.”']);
    expect(facts(final)).toEqual(['The agent\'s final message says the repository changed: “Note: we migrated from npm to pnpm last week, so use pnpm.”']);
  });
});
