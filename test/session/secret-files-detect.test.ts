/**
 * The token check of files the run wrote (`secret-files.ts`), without Docker: the in-sandbox `grep -E` pass
 * (run here with the real GNU grep) finds every token of the high-confidence kinds in the secrets corpus, the
 * host check confirms it with redaction's own rules, and nothing in the look-alike corpus nor in files that
 * look like a real project's (type annotations, dev URLs, a lock file, minified code, test fixtures) is flagged.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { findSecretKinds, type SecretKind } from '../../src/memory/redact.js';
import { ENCODED_TOKEN_ERE, TOKEN_ERE, matchKinds, tokenKinds } from '../../src/session/secret-files.js';
import { BASE64_TOKEN_ERE, base64TokenKinds } from '../../src/session/secret-base64.js';
import { createHash, randomBytes } from 'node:crypto';
import { NEGATIVE_CORPUS } from '../memory/negative-corpus.js';
import { SECRET_CORPUS } from '../memory/secret-corpus.js';

const HIGH = new Set(['anthropic_key', 'openai_key', 'aws_access_key_id', 'github_token', 'slack_token', 'slack_webhook', 'google_api_key', 'stripe_key', 'gitlab_token', 'npm_token', 'huggingface_token', 'pypi_token', 'sendgrid_key', 'vault_token', 'docker_hub_token', 'telegram_bot_token', 'discord_webhook', 'age_secret_key', 'provider_token']);
const dir = mkdtempSync(join(tmpdir(), 'mnemara-secret-files-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The in-sandbox pass over one file's text: the matches grep prints, then the host's kinds of each. */
async function scan(text: string): Promise<string[]> {
  const file = join(dir, 'f');
  writeFileSync(file, text);
  const r = await execa('grep', ['-oIE', '-e', TOKEN_ERE, '--', file], { reject: false });
  return r.stdout.split('\n').filter(Boolean).flatMap((m) => tokenKinds(m));
}

describe('tokens in files the run wrote', () => {
  it('finds every token of a high-confidence kind in the corpus, as a file an agent writes', async () => {
    // Entries whose secret is a whole token (others are fragments of split or escaped tokens in commands).
    const kinds = SECRET_CORPUS.filter((c) => HIGH.has(c.kind) && findSecretKinds(c.secret).includes(c.kind as SecretKind));
    expect(kinds.length).toBeGreaterThanOrEqual(30);
    const missed: string[] = [];
    for (const c of kinds) {
      // As an agent writes them: an env file line and a line of code.
      for (const text of [`API_TOKEN=${c.secret}\n`, `const key = "${c.secret}";\nexport default key;\n`]) {
        if ((await scan(text)).length === 0) missed.push(`${c.name}: ${JSON.stringify(text.slice(0, 40))}`);
      }
    }
    expect(missed).toEqual([]);
  });

  it('flags nothing in the look-alike corpus', async () => {
    const flagged: string[] = [];
    for (const c of NEGATIVE_CORPUS) if ((await scan(c.text)).length) flagged.push(c.name);
    expect(flagged).toEqual([]);
  });

  it('flags nothing in files shaped like a real project: annotations, dev URLs, lock files, minified code, fuzzy secrets', async () => {
    const files = {
      'src/App.tsx': 'const [token, setToken]: [string, React.Dispatch<React.SetStateAction<string>>] = useState("");\nexport function login(password: string | null) {}\n',
      Makefile: 'DB_URL ?= postgres://user:pass@localhost:5432/app\ntest:\n\tDATABASE_URL=$(DB_URL) npm test\n',
      'package-lock.json': JSON.stringify({ packages: { 'node_modules/axios': { version: '1.7.9', resolved: 'https://registry.npmjs.org/axios/-/axios-1.7.9.tgz', integrity: 'sha512-LhLcE7Hbiryz8oMDdDptSrWowmB4Bl6RCt6sIJKpRB4XtVf0iEgewX3au/pJqm+Py1kCASkb/FFKjxQaLtxJvw==' } } }, null, 2),
      'dist/app.min.js': '!function(e){var t={};function n(r){if(t[r])return t[r].exports}n.p="";var k="key-"+e.hash,s="sk-"+r;return{sk:"desk-lamp-shade",id:"5f1d7c9e3b2a4d6f8e0a1c3b5d7f9e1a",h:"d41d8cd98f00b204e9800998ecf8427e"}}([]);\n',
      '.env.example': 'OPENAI_API_KEY=<your-api-key>\nGITHUB_TOKEN=${GITHUB_TOKEN}\nSTRIPE_KEY=sk_test_your_key_here\n',
      '.env.local': 'PASSWORD=hunter2isnotsecret\nAPI_KEY=9f86d081884c7d659a2feaa0c55ad015\n',
      'test/fixtures/jwt.txt': 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U\n',
      // Documented example tokens (an SDK's README and type declarations quote them).
      'types/sts.d.ts': ' *     AccessKeyId: "AKIAIOSFODNN7EXAMPLE",\n *     hook: "https://hooks.slack.com/services/xxx/xxx/xxx"\n',
      'yarn.lock': 'axios@^1.7.9:\n  version "1.7.9"\n  resolved "https://registry.yarnpkg.com/axios/-/axios-1.7.9.tgz#d7d071380c132a24accda1b2cfc1535b79ec650a"\n',
    };
    const flagged: string[] = [];
    for (const [name, text] of Object.entries(files)) if ((await scan(text)).length) flagged.push(name);
    expect(flagged).toEqual([]);
  });

  it('names the token kind of a match, and refuses a shape redaction would not take', () => {
    expect(tokenKinds('=sk-ant-api03-FAKEq9Xv2Lm7Rt4Wz8Kp1Ns6Bd3Hf0Jc5Gy\n')).toEqual(['anthropic_key']);
    expect(tokenKinds('"ghp_FAKE0a1B2c3D4e5F6g7H8i9J0kLmNoPqRsTu"')).toEqual(['github_token']);
    // An OpenAI-shaped run of letters alone is a word, not a key (redaction's rule); a password is fuzzy here.
    expect(tokenKinds(' sk-abcdefghijklmnopqrstuvwxyz ')).toEqual([]);
    expect(tokenKinds('PASSWORD=FAKEhunter2secret')).toEqual([]);
  });
});

/** The base64 pass over one file's text (the second grep of the sandbox script), then the host's decoding check. */
async function scanBase64(text: string): Promise<string[]> {
  const file = join(dir, 'b64');
  writeFileSync(file, text);
  const r = await execa('grep', ['-oIE', '-e', BASE64_TOKEN_ERE, '--', file], { reject: false });
  return r.stdout.split('\n').filter(Boolean).flatMap((m) => base64TokenKinds(m, tokenKinds));
}

// Issue 10 trial: `echo -n ghp_… | base64 > token.b64` (and a k8s Secret's data) was kept: grep saw no prefix.
describe('tokens a run wrote base64-encoded', () => {
  it('finds every whole token of a high-confidence kind in the corpus, at every byte offset, as a run writes them', async () => {
    const kinds = SECRET_CORPUS.filter((c) => HIGH.has(c.kind) && findSecretKinds(c.secret).includes(c.kind as SecretKind));
    const missed: string[] = [];
    for (const c of kinds) {
      // A bare token piped to base64; an env line (offset 1 and 2 of a group by its length); a k8s Secret's data.
      for (const plain of [c.secret, `T=${c.secret}\n`, `TK=${c.secret}\n`, `TOK=${c.secret}`]) {
        const b64 = Buffer.from(plain).toString('base64');
        for (const text of [`${b64}\n`, `apiVersion: v1\nkind: Secret\ndata:\n  token: ${b64}\n`]) {
          if ((await scanBase64(text)).length === 0) missed.push(`${c.name}: ${JSON.stringify(plain.slice(0, 12))}`);
        }
      }
    }
    // The legacy OpenAI key's prefix (`sk-`) is too short to encode to a telling string: it is the one kind left.
    expect([...new Set(missed.map((m) => m.split(':')[0]))]).toEqual(['openai legacy key']);
  });

  it('flags nothing in base64 data that is not a token: images, integrity hashes, source maps, random bytes', async () => {
    const texts = [
      `<img src="data:image/png;base64,${Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47]), randomBytes(6000)]).toString('base64')}">`,
      `"integrity": "sha512-${createHash('sha512').update('axios').digest('base64')}"`,
      `//# sourceMappingURL=data:application/json;base64,${Buffer.from(JSON.stringify({ version: 3, mappings: 'AAAA,SAASA,GAAG;ghp_AAAACAAC'.repeat(200) })).toString('base64')}`,
      Array.from({ length: 200 }, () => randomBytes(57).toString('base64')).join('\n'),
      // The prefixes themselves encoded, with no token body after them.
      Buffer.from('ghp_ is the prefix of a GitHub token; sk-ant- of an Anthropic key.').toString('base64'),
    ];
    const flagged: number[] = [];
    for (const [i, t] of texts.entries()) if ((await scanBase64(t)).length) flagged.push(i);
    expect(flagged).toEqual([]);
  });
});


/**
 * The encoded pass as the sandbox runs it (base64 and hex in one grep over a batch of files), then the host's check
 * of each match: the kinds found in each text, in order.
 */
async function scanEncoded(texts: string[]): Promise<string[][]> {
  const batch = mkdtempSync(join(dir, 'enc-'));
  const files = texts.map((t, i) => {
    writeFileSync(join(batch, String(i)), t);
    return join(batch, String(i));
  });
  const r = await execa('grep', ['-oIHE', '-e', ENCODED_TOKEN_ERE, '--', ...files], { reject: false });
  const found: string[][] = texts.map(() => []);
  for (const line of r.stdout.split('\n').filter(Boolean)) {
    const cut = line.indexOf(':');
    found[Number(line.slice(batch.length + 1, cut))]?.push(...matchKinds(line.slice(cut + 1)));
  }
  return found;
}

// `printf %s "$T" | xxd -p -c0`, Python's `.hex()`, Node's `toString('hex')`: the prefix is hidden as with base64.
describe('tokens a run wrote hex-encoded', () => {
  it('finds every whole token of a high-confidence kind in the corpus, in either letter case, as a run writes them', async () => {
    const kinds = SECRET_CORPUS.filter((c) => HIGH.has(c.kind) && findSecretKinds(c.secret).includes(c.kind as SecretKind));
    const cases: { name: string; text: string }[] = [];
    for (const c of kinds) {
      // A bare token, `echo` with its newline, an env line; a hex string alone, in a JSON value, beside other hex.
      for (const plain of [c.secret, `${c.secret}\n`, `API_TOKEN=${c.secret}\n`]) {
        const hex = Buffer.from(plain).toString('hex');
        for (const h of [hex, hex.toUpperCase()]) {
          for (const text of [`${h}\n`, `{"blob": "${h}"}\n`, `sha256 ${createHash('sha256').update(h).digest('hex')}\ndata ${h}\n`]) {
            cases.push({ name: c.name, text });
          }
        }
      }
    }
    const found = await scanEncoded(cases.map((c) => c.text));
    const missed = cases.filter((_, i) => !found[i]?.length).map((c) => c.name);
    // As with base64, the legacy OpenAI key's prefix (`sk-`) is not among the encoded prefixes.
    expect([...new Set(missed)]).toEqual(['openai legacy key']);
  });

  it('flags nothing in hex data that is not a token: digests, git ids, UUIDs, random bytes, a prefix with no body', async () => {
    const texts = [
      Array.from({ length: 300 }, (_, i) => createHash('sha256').update(String(i)).digest('hex')).join('\n'),
      Array.from({ length: 300 }, () => randomBytes(20).toString('hex').toUpperCase()).join(' '),
      Array.from({ length: 100 }, () => crypto.randomUUID()).join(',\n'),
      randomBytes(8192).toString('hex'),
      // The prefixes themselves encoded, followed by words, not a token's body.
      Buffer.from('ghp_ and sk-ant- are prefixes, AKIA too; xoxb- is Slack.').toString('hex'),
      // A prefix's hex inside other hex, not on a byte boundary of a token.
      'deadbeefcafebabe6768705f000000000000000000000000000000 is a test vector\n',
    ];
    expect(await scanEncoded(texts)).toEqual(texts.map(() => []));
  });

  it('still finds base64 through the same grep', async () => {
    expect(await scanEncoded([`${Buffer.from('ghp_FAKE0a1B2c3D4e5F6g7H8i9J0kLmNoPqRsTu').toString('base64')}\n`])).toEqual([['github_token']]);
  });
});

// Eleventh new-user trial (high): a JSON file holding `"\u0067hp_…"` (the first character escaped) was kept in the
// workspace snapshot: the plain grep saw no prefix.
describe('tokens a run wrote with escaped characters', () => {
  const u = (c: string): string => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
  const x = (c: string): string => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`;

  it('finds every whole token of a high-confidence kind in the corpus, its first or every character escaped', async () => {
    const kinds = SECRET_CORPUS.filter((c) => HIGH.has(c.kind) && findSecretKinds(c.secret).includes(c.kind as SecretKind));
    const cases: { name: string; text: string }[] = [];
    for (const c of kinds) {
      const [first, rest] = [c.secret[0]!, c.secret.slice(1)];
      for (const escaped of [u(first) + rest, x(first) + rest, `\\${u(first)}${rest}`, [...c.secret].map(x).join('')]) {
        cases.push({ name: c.name, text: `{"token": "${escaped}"}\n` }, { name: c.name, text: `KEY = "${escaped}"\n` });
      }
    }
    const found = await scanEncoded(cases.map((c) => c.text));
    expect([...new Set(cases.filter((_, i) => !found[i]?.length).map((c) => c.name))]).toEqual([]);
  });

  it('flags nothing in escaped text that is not a token: minified code, i18n strings, a regex', async () => {
    const texts = [
      'var s="\\u003cdiv class=\\u0022x\\u0022\\u003e\\u00e9t\\u00e9_quelque_chose_de_long_encore\\u003c/div\\u003e";\n',
      '{"msg": "\\u0048ello_world_this_is_a_long_identifier_name"}\n',
      're = /[\\x20-\\x7e]+|\\x41BCDEFGHIJKLMNOPQRSTUVWXYZ_abcdef/;\n',
    ];
    expect(await scanEncoded(texts)).toEqual(texts.map(() => []));
  });
});
