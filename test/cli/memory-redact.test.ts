/**
 * Twelfth new-user trial F14: a password redaction missed reached MEMORY.md; `memory forget` removed the entry,
 * but the value stayed in the head's rollout summaries, raw memories, sessions/ and the host's transcripts, and
 * no command or recipe removed it. `mnemara memory redact` purges it by its value from the head (a new memory
 * snapshot) and the host's transcripts (their 0600 kept), and the recipe it prints (squash, prune) leaves no
 * blob of the store holding it. A real store (gzip tar blobs read back) and the real CLI; no Docker needed.
 */
import { mkdirSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../src/snapshot/index.js';
import { tempDir } from '../snapshot/helpers.js';

const SECRET = 'Pw7Colon3Zq!x';
const SHORT = 'Tk4Pw';

function cli(home: string, args: string[], input?: string) {
  return execa(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
    env: { MNEMARA_HOME: home, MNEMARA_MEMORY_EXTRACTOR: 'deterministic', ANTHROPIC_BASE_URL: 'http://127.0.0.1:9' },
    reject: false,
    ...(input !== undefined ? { input } : {}),
  });
}

/** Every file under `dir` holding `value`, gzip members read as what they hold. */
function holders(dir: string, value: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!e.isFile()) continue;
    const path = join(e.parentPath, e.name);
    const raw = readFileSync(path);
    let text = raw.toString('latin1');
    try {
      text += gunzipSync(raw).toString('latin1');
    } catch {
      // not gzip
    }
    if (text.includes(value)) out.push(path);
  }
  return out;
}

describe('mnemara memory redact', () => {
  it('purges a missed password from the head, the host transcripts and, with the printed recipe, the whole store', async () => {
    const home = tempDir();
    const store = await openStore(join(home, 'store'));
    const id = '20261204T101500000Z-5e5e5e5e5e';
    const ws = tempDir();
    mkdirSync(join(ws, 'memories', 'rollout_summaries'), { recursive: true });
    mkdirSync(join(ws, 'sessions'));
    writeFileSync(join(ws, 'app.rb'), 'puts "hi"\n');
    writeFileSync(join(ws, 'sessions', `${id}.jsonl`), `{"type":"user","text":"the staging pw is ${SECRET} (do not share)"}\n`);
    writeFileSync(join(ws, 'memories', 'MEMORY.md'), `# Memory\n\n## Facts\n\n- Staging login: admin, password ${SECRET}. <!-- id: m-1 -->\n`);
    writeFileSync(join(ws, 'memories', 'rollout_summaries', `${id}.md`), `Logged in to staging with ${SECRET}.\n`);
    const w = await store.create({ dir: ws }, { lineage: 'shop', kind: 'workspace', rolloutIds: [id] });
    await store.advanceHead('shop', null, w.id);
    mkdirSync(join(home, 'transcripts'), { recursive: true, mode: 0o700 });
    writeFileSync(join(home, 'transcripts', `${id}.jsonl`), `{"text":"pw ${SECRET}"}\n{"text":"again ${SECRET}"}\n`, { mode: 0o600 });
    writeFileSync(join(home, 'transcripts', 'other.jsonl'), '{"text":"nothing here"}\n', { mode: 0o600 });

    // Refused: no value, or one so short it would hit ordinary words. Nothing changes.
    expect((await cli(home, ['memory', 'redact', '--lineage', 'shop'], '')).exitCode).toBe(2);
    const short = await cli(home, ['memory', 'redact', '--lineage', 'shop'], `${SHORT}\n`);
    expect(short.exitCode).toBe(2);
    expect(short.stderr).toMatch(/at least 6 characters/);
    expect(await store.getHead('shop')).toBe(w.id);

    const run = await cli(home, ['memory', 'redact', '--lineage', 'shop', '--json'], `${SECRET}\n`);
    expect(run.exitCode, run.stderr).toBe(0);
    const r = JSON.parse(run.stdout) as { head: string; layout: { path: string }[]; transcripts: { path: string; occurrences: number }[]; olderSnapshots: number };
    expect(r.layout.map((f) => f.path).sort()).toEqual(['memories/MEMORY.md', `memories/rollout_summaries/${id}.md`, `sessions/${id}.jsonl`]);
    expect(r.transcripts).toEqual([{ path: `${id}.jsonl`, occurrences: 2 }]);
    expect(await store.getHead('shop')).toBe(r.head);
    expect(r.olderSnapshots).toBeGreaterThanOrEqual(1);
    const out = tempDir();
    await store.restoreToDirectory(r.head, out);
    expect(holders(out, SECRET)).toEqual([]);
    expect(readFileSync(join(out, 'memories', 'MEMORY.md'), 'utf8')).toContain('password [REDACTED:secret]');
    expect(readFileSync(join(out, 'app.rb'), 'utf8')).toBe('puts "hi"\n');
    expect(holders(join(home, 'transcripts'), SECRET)).toEqual([]);
    expect(statSync(join(home, 'transcripts', `${id}.jsonl`)).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(home, 'transcripts', `${id}.jsonl`), 'utf8')).toBe('{"text":"pw [REDACTED:secret]"}\n{"text":"again [REDACTED:secret]"}\n');

    // The old layers still hold it, until the recipe the text output prints is followed.
    expect(holders(join(home, 'store'), SECRET).length).toBeGreaterThan(0);
    const text = await cli(home, ['memory', 'redact', '--lineage', 'shop'], `${SECRET}\n`);
    expect(text.stdout).toContain('does not hold it');
    const recipe = /mnemara (snapshot squash \S+) && mnemara (snapshot prune --lineage \S+ --keep 1)/.exec(text.stdout);
    expect(recipe, text.stdout).not.toBeNull();
    expect(text.stdout).toContain('10 minutes');
    const squash = await cli(home, recipe![1]!.split(' '));
    expect(squash.exitCode, squash.stderr).toBe(0);
    // Blobs younger than 10 minutes are spared (a concurrent write may need them), as the output says: the prune
    // runs as if that wait had passed.
    const old = new Date(Date.now() - 11 * 60_000);
    for (const e of readdirSync(join(home, 'store', 'blobs'), { withFileTypes: true, recursive: true })) if (e.isFile()) utimesSync(join(e.parentPath, e.name), old, old);
    const prune = await cli(home, recipe![2]!.split(' '));
    expect(prune.exitCode, prune.stderr).toBe(0);
    expect(holders(join(home, 'store'), SECRET)).toEqual([]);
    const after = tempDir();
    await store.restoreToDirectory((await store.getHead('shop')) as string, after);
    expect(readFileSync(join(after, 'app.rb'), 'utf8')).toBe('puts "hi"\n');
  }, 120_000);
});
