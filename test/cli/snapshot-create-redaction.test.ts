/**
 * New-user trial of issue 10 (second round): `mnemara snapshot create DIR --kind memory`, the README's way to save
 * a hand edit of memory, stored `memories/*.md` with secrets verbatim in the layer and at the head, and a file
 * whose NAME was a token kept the token in every later snapshot and the tree index. Now the memory layout is
 * redacted (contents and names) before any layer is written, with a notice naming files and counts, never
 * values. Checked on the bytes of every file of the store (layers decompressed), for both kinds.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';

const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const GHP = `ghp_${'Zq7Rk2Lm9Xw4Tp8Vn3Bj6Hc1Df5Gs0Ya2Ue7Oi'.slice(0, 36)}`;
const NAME_TOKEN = `ghp_${'Pn4Kw8Rt2Yb6Mx0Zc3Vq7Lh1Sd5Gf9Ja2Ek6Uo'.slice(0, 36)}`;
const STRIPE = 'sk_live_51Hx9KLzdQ2mW8rT4vB7nY3pA';
const PROSE_PW = 'StagingPw2024zz';
const SECRETS = [GHP, NAME_TOKEN, STRIPE, PROSE_PW];

let root: string;
afterEach(() => rmSync(root, { recursive: true, force: true }));

async function cli(home: string, args: string[]) {
  return execa(process.execPath, ['--import', 'tsx', MAIN, ...args], {
    env: { MNEMARA_HOME: home, PATH: process.env.PATH ?? '', MNEMARA_LOG_LEVEL: 'warn' },
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
  });
}

/** Every file under `dir`, gzip members decompressed: what is at rest in the store. */
function storeBytes(dir: string): string {
  let out = '';
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    out += `\n${name}\n`;
    if (statSync(path).isDirectory()) {
      out += storeBytes(path);
      continue;
    }
    const data = readFileSync(path);
    out += (data[0] === 0x1f && data[1] === 0x8b ? gunzipSync(data) : data).toString('latin1');
  }
  return out;
}

/** A workspace with a hand-edited memory: secrets in MEMORY.md, in a note, in a note's name and in a transcript. */
function handEditedWorkspace(): string {
  const ws = join(root, 'ws');
  mkdirSync(join(ws, 'memories', 'deploy'), { recursive: true });
  mkdirSync(join(ws, 'sessions'), { recursive: true });
  writeFileSync(
    join(ws, 'memories', 'MEMORY.md'),
    `# Memory\n\n## Conventions\n- the staging db password is ${PROSE_PW} and the deploy key is ${GHP}\n- run npm test before a commit\n`,
  );
  writeFileSync(join(ws, 'memories', 'notes.md'), `service:\n  api_key: ${STRIPE}\n  region: eu-west-1\n`);
  writeFileSync(join(ws, 'memories', `${NAME_TOKEN}.md`), 'a note whose name is a token\n');
  writeFileSync(join(ws, 'memories', 'deploy', `${NAME_TOKEN}.md`), 'same name, other folder\n');
  writeFileSync(join(ws, 'sessions', 'r1.jsonl'), `${JSON.stringify({ type: 'tool_result', output: `export STRIPE=${STRIPE}` })}\n`);
  writeFileSync(join(ws, 'app.js'), 'console.log("hi")\n');
  return ws;
}

describe('snapshot create redacts the memory layout before any layer is written', () => {
  for (const kind of ['memory', 'workspace'] as const) {
    it(`--kind ${kind}: no secret in the store, the notice names files and counts, memory show is clean`, async () => {
      root = mkdtempSync(join(tmpdir(), 'mnemara-create-redact-'));
      const home = join(root, 'home');
      const ws = handEditedWorkspace();
      const r = await cli(home, ['snapshot', 'create', ws, '--lineage', 'trial/main', '--kind', kind, '--json']);
      expect(r.exitCode, r.stderr).toBe(0);
      const out = JSON.parse(r.stdout) as { redaction: { redacted: Array<{ path: string; secrets: number }>; renamed: string[]; refused: string[] } };
      expect(out.redaction.redacted.map((f) => f.path).sort()).toEqual(['memories/MEMORY.md', 'memories/notes.md', 'sessions/r1.jsonl']);
      expect(out.redaction.redacted.find((f) => f.path === 'memories/MEMORY.md')!.secrets).toBe(2);
      expect(out.redaction.renamed.sort()).toEqual(['memories/[REDACTED:github_token].md', 'memories/deploy/[REDACTED:github_token].md']);
      for (const s of SECRETS) {
        expect(r.stdout + r.stderr).not.toContain(s);
        expect(storeBytes(join(home, 'store'))).not.toContain(s);
      }
      // What a person keeps: the bullet's other words, the region, the note under its new name.
      const show = await cli(home, ['memory', 'show', '--lineage', 'trial/main']);
      expect(show.exitCode, show.stderr).toBe(0);
      expect(storeBytes(join(home, 'store'))).toContain('- the staging db password is [REDACTED:password] and the deploy key is [REDACTED:github_token]');
      for (const s of SECRETS) expect(show.stdout).not.toContain(s);
      expect(readFileSync(join(ws, 'memories', '[REDACTED:github_token].md'), 'utf8')).toBe('a note whose name is a token\n');
      expect(readFileSync(join(ws, 'memories', 'notes.md'), 'utf8')).toContain('region: eu-west-1');

      // The text output says the same, without values.
      const text = await cli(home, ['snapshot', 'create', ws, '--lineage', 'trial/main', '--kind', kind]);
      expect(text.exitCode, text.stderr).toBe(0);
      expect(text.stdout).not.toContain('redacted');
      writeFileSync(join(ws, 'memories', 'later.md'), `vault token ${GHP}\n`);
      const again = await cli(home, ['snapshot', 'create', ws, '--lineage', 'trial/main', '--kind', kind]);
      expect(again.stdout).toMatch(/redacted 1 secret\(s\) in memories\/later\.md \(1\)/);
      expect(again.stdout + storeBytes(join(home, 'store'))).not.toContain(GHP);
    }, 120_000);
  }
});

describe('a memory file that cannot be redacted is the user\'s: moved to <home>/left-out/, never deleted', () => {
  for (const kind of ['memory', 'workspace'] as const) {
    it(`--kind ${kind}: a binary file and a 65 MiB log holding tokens leave the snapshot and wait in left-out/ (0700/0600)`, async () => {
      // New-user trial (#10): `snapshot create` deleted memories/b.bin from the user's own directory, no copy kept.
      root = mkdtempSync(join(tmpdir(), 'mnemara-create-aside-'));
      const home = join(root, 'home');
      const ws = join(root, 'ws');
      mkdirSync(join(ws, 'memories', 'cache'), { recursive: true });
      writeFileSync(join(ws, 'app.js'), 'console.log("hi")\n');
      writeFileSync(join(ws, 'memories', 'MEMORY.md'), '# Memory\n- builds run with `npm run build`\n');
      // A SQLite-like cache: a header, NUL bytes, a token among them.
      const bin = Buffer.concat([Buffer.from('SQLite format 3\0'), Buffer.alloc(4096), Buffer.from(`token=${GHP}`), Buffer.alloc(512)]);
      writeFileSync(join(ws, 'memories', 'cache', 'notes.db'), bin);
      // An agent's log over the redaction limit (sparse: 65 MiB apparent, a few KiB on disk) with a key at its start.
      writeFileSync(join(ws, 'memories', 'build.log'), `STRIPE_KEY=${STRIPE}\n`);
      const { truncateSync } = await import('node:fs');
      truncateSync(join(ws, 'memories', 'build.log'), 65 * 1024 * 1024);
      const log = readFileSync(join(ws, 'memories', 'build.log'));

      const r = await cli(home, ['snapshot', 'create', ws, '--lineage', 'aside/main', '--kind', kind, '--json']);
      expect(r.exitCode, r.stderr).toBe(0);
      const out = JSON.parse(r.stdout) as { redaction: { refused: string[]; setAsideAt: string } };
      expect(out.redaction.refused.sort()).toEqual(['memories/build.log', 'memories/cache/notes.db']);
      const aside = out.redaction.setAsideAt;
      expect(aside.startsWith(join(home, 'left-out'))).toBe(true);
      expect(readFileSync(join(aside, 'memories/cache/notes.db')).equals(bin)).toBe(true);
      expect(readFileSync(join(aside, 'memories/build.log')).equals(log)).toBe(true);
      expect(statSync(aside).mode & 0o777).toBe(0o700);
      expect(statSync(join(home, 'left-out')).mode & 0o777).toBe(0o700);
      expect(statSync(join(aside, 'memories/cache/notes.db')).mode & 0o777).toBe(0o600);
      for (const s of [GHP, STRIPE]) expect(storeBytes(join(home, 'store'))).not.toContain(s);

      // The text output says where they are.
      writeFileSync(join(ws, 'memories', 'cache', 'notes.db'), bin);
      const text = await cli(home, ['snapshot', 'create', ws, '--lineage', 'aside/main', '--kind', kind]);
      expect(text.exitCode, text.stderr).toBe(0);
      expect(text.stdout).toMatch(/left out 1 binary or oversized file\(s\) holding a secret .*memories\/cache\/notes\.db, moved to \S+left-out\/snapshot-/);
      expect(text.stdout).not.toContain('removed');
    }, 180_000);
  }
});

describe('a JSON file of the memory layout stays JSON after redaction', () => {
  it('the consolidation state and a JSON note with "password is" in Korean, Chinese and Japanese still parse, the values gone', async () => {
    // Ninth new-user trial (#10): the CJK prose rules took the closing `",` of a JSON string into the value; after a
    // `memory forget` re-redacted memories/.state.json no later session consolidated ("not valid JSON").
    root = mkdtempSync(join(tmpdir(), 'mnemara-create-json-'));
    const home = join(root, 'home');
    const ws = join(root, 'ws');
    mkdirSync(join(ws, 'memories'), { recursive: true });
    const values = ['Secr3tKo77', 'Secr3tZh77', 'Secr3tJa77'];
    const note = { ko: `비밀번호는 ${values[0]}`, zh: `密码是 ${values[1]}`, ja: `パスワードは ${values[2]}`, region: 'eu-west-1' };
    writeFileSync(join(ws, 'memories', 'n.json'), `${JSON.stringify(note, null, 2)}\n`);
    const state = { version: 1, entries: [{ id: 'm-1', text: `the staging 密码：${values[1]}`, importance: 3 }, { id: 'm-2', text: 'npm test', importance: 2 }] };
    writeFileSync(join(ws, 'memories', '.state.json'), JSON.stringify(state));
    const r = await cli(home, ['snapshot', 'create', ws, '--lineage', 'json/main', '--kind', 'memory', '--json']);
    expect(r.exitCode, r.stderr).toBe(0);
    const n = JSON.parse(readFileSync(join(ws, 'memories', 'n.json'), 'utf8')) as Record<string, string>;
    expect(n).toEqual({ ko: '비밀번호는 [REDACTED:password]', zh: '密码是 [REDACTED:password]', ja: 'パスワードは [REDACTED:password]', region: 'eu-west-1' });
    const s = JSON.parse(readFileSync(join(ws, 'memories', '.state.json'), 'utf8')) as typeof state;
    expect(s.entries.map((e) => e.text)).toEqual(['the staging 密码：[REDACTED:password]', 'npm test']);
    for (const v of values) expect(storeBytes(join(home, 'store'))).not.toContain(v);
  }, 120_000);
});
