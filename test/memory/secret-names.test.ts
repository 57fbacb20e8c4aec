/**
 * Issue 10, fifth trial: a file under `memories/` whose NAME is a token (`touch memories/ghp_<36>.md`) kept the
 * token at the head, in every later snapshot and in the tree index: names were not redacted. Every place that
 * redacts the memory layout before a snapshot now renames such files and folders to the redacted name (unique
 * among their siblings), on real files: the host pass (`snapshot create`, `memory forget --lineage`), the
 * pipeline's pass over the agent's own notes, and the pass inside the sandbox before the workspace snapshot.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { memoryPaths } from '../../src/memory/layout.js';
import { redactForeignMemoryFiles } from '../../src/memory/redact-files.js';
import { redactLayoutTree } from '../../src/memory/redact-tree.js';
import { LocalSandbox } from '../../src/sandbox/local/local-sandbox.js';
import { redactLayoutInSandbox } from '../../src/session/redact-notes.js';

// Fake tokens of several kinds: the kind of bug, not one prefix.
const NAMES = [
  `ghp_${'Qw3eRt5yUi7oPa9sDf2gHj4kLz6xCv8bNm1q'}`,
  `ghp_${'Lk9jHg7fDs5aPo3iUy1tRe8wQz6xCv4bNm2l'}`,
  'sk_live_51HxKLzdQ2mW8rT4vB7nY3pA',
  `glpat-${'Xy7Kq2Lm9Zw4Tp8Vn3Bj'}`,
];

let root: string;
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** A memory layout with tokens as file and folder names, and an ordinary file beside them. */
function layoutWithSecretNames(ws: string): void {
  mkdirSync(join(ws, 'memories', NAMES[2]!), { recursive: true });
  mkdirSync(join(ws, 'sessions'), { recursive: true });
  writeFileSync(join(ws, 'memories', `${NAMES[0]}.md`), 'first\n');
  writeFileSync(join(ws, 'memories', `${NAMES[1]}.md`), 'second\n');
  writeFileSync(join(ws, 'memories', NAMES[2]!, `${NAMES[3]}.txt`), 'nested\n');
  writeFileSync(join(ws, 'memories', 'notes.md'), 'plain\n');
  writeFileSync(join(ws, 'sessions', `${NAMES[3]}.jsonl`), '{}\n');
}

/** Every path under `dir`, relative, `/`-separated. */
function tree(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      out.push(relative(dir, p).split('\\').join('/'));
      if (e.isDirectory()) walk(p);
    }
  };
  walk(dir);
  return out.sort();
}

function expectNoSecretNames(ws: string, dirs: string[]): void {
  const paths = tree(ws).filter((p) => dirs.some((d) => p.startsWith(`${d}/`)));
  for (const n of NAMES) for (const p of paths) expect(p).not.toContain(n);
  // Nothing lost: both github-named notes are there, under two names.
  const contents = paths.filter((p) => p.endsWith('.md')).map((p) => readFileSync(join(ws, p), 'utf8')).sort();
  expect(contents).toEqual(['first\n', 'plain\n', 'second\n']);
}

describe('file names that hold a secret', () => {
  it('host pass (snapshot create): renamed, unique, contents kept, only new names reported', async () => {
    root = mkdtempSync(join(tmpdir(), 'mnemara-names-'));
    layoutWithSecretNames(root);
    const r = await redactLayoutTree(root, ['memories', 'sessions']);
    expectNoSecretNames(root, ['memories', 'sessions']);
    expect(r.renamed.sort()).toEqual([
      'memories/[REDACTED:github_token]-2.md',
      'memories/[REDACTED:github_token].md',
      'memories/[REDACTED:stripe_key]',
      'sessions/[REDACTED:gitlab_token].jsonl',
      'memories/[REDACTED:stripe_key]/[REDACTED:gitlab_token].txt',
    ].sort());
    expect(JSON.stringify(r)).not.toMatch(new RegExp(NAMES.join('|')));
    expect(readFileSync(join(root, 'memories', '[REDACTED:stripe_key]', '[REDACTED:gitlab_token].txt'), 'utf8')).toBe('nested\n');
  });

  it("the pipeline's pass over the agent's notes renames them too", async () => {
    root = mkdtempSync(join(tmpdir(), 'mnemara-names-'));
    layoutWithSecretNames(root);
    const changed = await redactForeignMemoryFiles(memoryPaths(root));
    expectNoSecretNames(root, ['memories']);
    expect(changed.join('\n')).not.toMatch(new RegExp(NAMES.join('|')));
  });

  it('the pass inside the sandbox before the workspace snapshot renames them (deepest first)', async () => {
    const sandbox = await LocalSandbox.create({ sessionId: 'secret-names' });
    root = mkdtempSync(join(tmpdir(), 'mnemara-names-'));
    try {
      const ws = sandbox.workspaceDir;
      layoutWithSecretNames(ws);
      const r = await redactLayoutInSandbox(sandbox, { memoriesDir: 'memories', sessionsDir: 'sessions' });
      expectNoSecretNames(ws, ['memories', 'sessions']);
      expect(r.renamed.length).toBe(5);
      expect(JSON.stringify(r)).not.toMatch(new RegExp(NAMES.join('|')));
    } finally {
      await sandbox.close();
    }
  });
});
