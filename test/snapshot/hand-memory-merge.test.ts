/**
 * Issue 10, new-user trial (high): Alice and Bob each restored the same head, each added a bullet to
 * `memories/MEMORY.md` and each ran `snapshot create --kind memory`: both exited 0 and the head kept Bob's bullet
 * only (three concurrent creates: one hand note survived). A hand snapshot now merges the head's memory three-way
 * with what its directory was restored from, as a session does, so every person's edit reaches the head.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderMemoryMd, type MemoryEntry } from '../../src/memory/memory-md.js';
import { parseSummary } from '../../src/memory/memory-summary-md.js';
import { cli } from '../support/cli.js';
import { tempDir } from './helpers.js';


const entry = (id: string, text: string, kind: MemoryEntry['kind']): MemoryEntry => ({
  id, kind, text, sources: ['0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b'], importance: 4, at: '2026-11-30T09:12:00Z', edited: false,
});

/** A small express-style project whose head holds a consolidated MEMORY.md, a summary, a transcript and a hand block. */
function project(): string {
  const dir = tempDir();
  mkdirSync(join(dir, 'lib/router'), { recursive: true });
  mkdirSync(join(dir, 'memories/rollout_summaries'), { recursive: true });
  mkdirSync(join(dir, 'sessions'));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'express-like', version: '5.0.0', scripts: { test: 'mocha --require test/support/env' } }, null, 2));
  writeFileSync(join(dir, 'lib/router/index.js'), "'use strict';\nmodule.exports = function Router() {};\n");
  const info = { consolidatedAt: '2026-11-30T09:12:00Z', producer: 'deterministic', promptVersion: '7' };
  const entries = [
    entry('m-0a1b2c3d', 'Run `npm test -- --grep router` for the router suite; the full suite takes 40 s.', 'procedure'),
    entry('m-1b2c3d4e', 'The test helper `test/support/env.js` sets NODE_ENV=test; tests fail without it.', 'pitfall'),
  ];
  const blocks = [{ after: 'procedure' as const, ownHeading: true, lines: ['### Release checklist', '1. bump version', '2. npm publish --dry-run'] }];
  writeFileSync(join(dir, 'memories/MEMORY.md'), renderMemoryMd(entries, info, blocks));
  writeFileSync(join(dir, 'memories/memory_summary.md'), '# Memory summary\n\n- router suite: `npm test -- --grep router` [m-0a1b2c3d]\n');
  writeFileSync(join(dir, 'memories/notes.md'), 'team notes\n');
  writeFileSync(join(dir, 'memories/rollout_summaries/0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.md'), '# Rollout\nfixed the router\n');
  writeFileSync(join(dir, 'sessions/0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl'), '{"type":"session_meta"}\n');
  return dir;
}

/** Restores the head of `lineage` into a new directory and appends `bullet` to its MEMORY.md under the title. */
async function copyWithBullet(home: string, lineage: string, bullet: string): Promise<string> {
  const dir = join(tempDir(), 'copy');
  const r = await cli(home, 'snapshot', 'restore', lineage, dir);
  expect(r.code, r.stderr).toBe(0);
  const file = join(dir, 'memories/MEMORY.md');
  writeFileSync(file, readFileSync(file, 'utf8').replace('## Procedures', `## Procedures\n\n- ${bullet}`));
  return dir;
}

/** Restores the head of `lineage` into a new directory named `name` and deletes entry `id` from its MEMORY.md. */
async function copyWithout(home: string, lineage: string, id: string, name: string): Promise<string> {
  const dir = join(tempDir(), name);
  expect((await cli(home, 'snapshot', 'restore', lineage, dir)).code).toBe(0);
  const md = join(dir, 'memories/MEMORY.md');
  writeFileSync(md, readFileSync(md, 'utf8').split('\n').filter((l) => !l.includes(id)).join('\n'));
  return dir;
}

async function headMemory(home: string, lineage: string): Promise<string> {
  const out = join(tempDir(), 'head');
  const r = await cli(home, 'snapshot', 'restore', lineage, out);
  expect(r.code, r.stderr).toBe(0);
  return readFileSync(join(out, 'memories/MEMORY.md'), 'utf8');
}

describe('snapshot create --kind memory of a copy restored from an older head', { timeout: 300_000 }, () => {
  it("one after the other: Bob's snapshot keeps Alice's bullet, the entries and the hand block", async () => {
    const home = tempDir();
    expect((await cli(home, 'snapshot', 'create', project(), '--lineage', 'hand/main')).code).toBe(0);
    const alice = await copyWithBullet(home, 'hand/main', 'Alice: use `DEBUG=express:* npm start` to trace routing.');
    const bob = await copyWithBullet(home, 'hand/main', 'Bob: never commit `.env`; the CI reads secrets from the vault.');
    const a = await cli(home, 'snapshot', 'create', alice, '--lineage', 'hand/main', '--kind', 'memory');
    expect(a.code, a.stderr).toBe(0);
    const b = await cli(home, 'snapshot', 'create', bob, '--lineage', 'hand/main', '--kind', 'memory');
    expect(b.code, b.stderr).toBe(0);
    const head = await headMemory(home, 'hand/main');
    expect(head).toContain('Alice: use `DEBUG=express:* npm start`');
    expect(head).toContain('Bob: never commit `.env`');
    expect(head).toContain('m-0a1b2c3d');
    expect(head).toContain('m-1b2c3d4e');
    expect(head).toContain('### Release checklist');
    expect(b.stderr).toMatch(/merged its memory in/);
    // Bob's directory now holds what the head holds, so his next snapshot does not undo Alice's bullet.
    expect(readFileSync(join(bob, 'memories/MEMORY.md'), 'utf8')).toContain('Alice:');
  });

  it('the merged MEMORY.md gets its own memory_summary.md, rendered as phase 2 renders it, not the head\'s stale one', async () => {
    const home = tempDir();
    expect((await cli(home, 'snapshot', 'create', project(), '--lineage', 'hand/summary')).code).toBe(0);
    const alice = await copyWithBullet(home, 'hand/summary', 'Alice: `npm run lint -- --fix` before every commit in lib/router/.');
    // Bob deletes the router-suite entry, which the head's summary names.
    const bob = await copyWithout(home, 'hand/summary', 'm-0a1b2c3d', 'bob ö');
    expect((await cli(home, 'snapshot', 'create', alice, '--lineage', 'hand/summary', '--kind', 'memory')).code).toBe(0);
    const b = await cli(home, 'snapshot', 'create', bob, '--lineage', 'hand/summary', '--kind', 'memory');
    expect(b.code, b.stderr).toBe(0);
    expect(b.stderr).toMatch(/merged its memory in/);
    const out = join(tempDir(), 'head');
    expect((await cli(home, 'snapshot', 'restore', 'hand/summary', out)).code).toBe(0);
    const summary = readFileSync(join(out, 'memories/memory_summary.md'), 'utf8');
    // Alice's bullet (merged in from the head) and the pitfall are there; Bob's deletion holds in it too.
    expect(summary).toContain('npm run lint -- --fix');
    expect(summary).toContain('m-1b2c3d4e');
    expect(summary).not.toContain('m-0a1b2c3d');
    expect(summary).toContain('Release checklist');
    // It is what phase 2's renderer makes of the merged MEMORY.md: the read path parses it, header and entries.
    const parsed = parseSummary(summary);
    expect(parsed.info?.producer).toBe('deterministic');
    expect(parsed.entries.map((e) => e.text).join('\n')).toContain('`npm run lint -- --fix`');
  });

  it('three at once: every hand note reaches the head', async () => {
    const home = tempDir();
    expect((await cli(home, 'snapshot', 'create', project(), '--lineage', 'hand/many')).code).toBe(0);
    const names = ['Carol', 'Dave', 'Erin'];
    const dirs = [];
    for (const n of names) dirs.push(await copyWithBullet(home, 'hand/many', `${n}: the router tests need port 3000 free.`));
    const rs = await Promise.all(dirs.map((d) => cli(home, 'snapshot', 'create', d, '--lineage', 'hand/many', '--kind', 'memory')));
    for (const r of rs) expect(r.code, r.stderr).toBe(0);
    const head = await headMemory(home, 'hand/many');
    for (const n of names) expect(head).toContain(`${n}: the router tests`);
  });

  it('a deletion on one side and another file changed on both: the deletion holds, both versions of the file are kept', async () => {
    const home = tempDir();
    expect((await cli(home, 'snapshot', 'create', project(), '--lineage', 'hand/del')).code).toBe(0);
    const alice = await copyWithBullet(home, 'hand/del', 'Alice: a note.');
    // Bob deletes the pitfall bullet and rewrites notes.md; Alice rewrites notes.md too.
    const bob = await copyWithout(home, 'hand/del', 'm-1b2c3d4e', 'bob');
    writeFileSync(join(alice, 'memories/notes.md'), 'team notes\nalice was here\n');
    writeFileSync(join(bob, 'memories/notes.md'), 'team notes\nbob was here\n');
    expect((await cli(home, 'snapshot', 'create', alice, '--lineage', 'hand/del', '--kind', 'memory')).code).toBe(0);
    const b = await cli(home, 'snapshot', 'create', bob, '--lineage', 'hand/del', '--kind', 'memory');
    expect(b.code, b.stderr).toBe(0);
    const out = join(tempDir(), 'head');
    expect((await cli(home, 'snapshot', 'restore', 'hand/del', out)).code).toBe(0);
    const head = readFileSync(join(out, 'memories/MEMORY.md'), 'utf8');
    expect(head).toContain('Alice: a note.');
    expect(head).not.toContain('m-1b2c3d4e');
    const notes = readdirSync(join(out, 'memories')).filter((f) => f.startsWith('notes.md'));
    const texts = notes.map((f) => readFileSync(join(out, 'memories', f), 'utf8')).join('');
    expect(texts).toContain('alice was here');
    expect(texts).toContain('bob was here');
    // The code came from the head untouched.
    expect(existsSync(join(out, 'lib/router/index.js'))).toBe(true);
  });

  it('the snapshot the copy was restored from is gone: exit 2, nothing changed', async () => {
    const home = tempDir();
    expect((await cli(home, 'snapshot', 'create', project(), '--lineage', 'hand/gone')).code).toBe(0);
    const bob = await copyWithBullet(home, 'hand/gone', 'Bob: a note.');
    const other = tempDir();
    cpSync(bob, other, { recursive: true });
    // Make the marker name a snapshot the store does not have.
    const markers = join(home, 'restores');
    for (const f of readdirSync(markers)) {
      const m = JSON.parse(readFileSync(join(markers, f), 'utf8')) as { snapshot: string };
      writeFileSync(join(markers, f), JSON.stringify({ ...m, snapshot: 'f'.repeat(m.snapshot.length) }));
    }
    const before = readFileSync(join(bob, 'memories/MEMORY.md'), 'utf8');
    const r = await cli(home, 'snapshot', 'create', bob, '--lineage', 'hand/gone', '--kind', 'memory');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no longer in the store/);
    expect(readFileSync(join(bob, 'memories/MEMORY.md'), 'utf8')).toBe(before);
  });
});
