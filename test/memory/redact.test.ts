import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultFixtures } from '../../scripts/eval-memory/labels.js';
import { findSecretKinds, isSecretName, redact, redactDeep } from '../../src/memory/redact.js';
import { SECRET_CORPUS } from './secret-corpus.js';

const FIXTURES = defaultFixtures();

/** Ordinary text that must come out unchanged. */
const HARMLESS: string[] = [
  // Code a short trial redacted in stored transcripts (round 17): Rust paths, a TypeScript non-null assertion, a
  // header that names its secret by a variable.
  'let secret = std::env::var("APP_SECRET").expect("set APP_SECRET");',
  'let password = String::from_utf8(bytes)?;',
  'let secret = Secret::new(key);',
  'const apiKey = process.env.API_KEY!;',
  'curl -H "Authorization: Bearer $GITHUB_TOKEN" https://api.github.com/user',
  'commit 3f9a1c2e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39 (HEAD -> main)',
  'git log --oneline: a41c9e2 Switch to pnpm',
  'request id 123e4567-e89b-12d3-a456-426614174000',
  'sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
  'digest: sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
  '/workspace/src/components/LegendTooltip/LegendTooltip.test.tsx',
  'PWD=/workspace\nOLDPWD=/home/agent\nPATH=/usr/local/bin:/usr/bin',
  'max_tokens=4096',
  'MAX_TOKENS: 4096',
  'function login(password: string, token: Token): Promise<void> {',
  'const apiKey = process.env.ANTHROPIC_API_KEY;',
  'token = getToken()',
  'password = None',
  'GITHUB_TOKEN=${{ secrets.GITHUB_TOKEN }}',
  'export ANTHROPIC_API_KEY=$ANTHROPIC_API_KEY',
  'TOKEN_FILE=/run/secrets/token',
  'The sandbox env holds AWS_SECRET_ACCESS_KEY and GITHUB_TOKEN; never print them.',
  'https://github.com/acme/tessellate-ui/pull/42',
  'postgresql://localhost:5432/ledger',
  'npm run test:unit -- --reporter=dot',
  'task-runner-sk-something is a name',
  'base64 of a png: iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk',
  'sk-learn is not a key',
  'Bearer tokens must be refreshed',
  '"password": ""',
  'password: ********',
  'ssh git@github.com:acme/repo.git',
  '/workspace/src/render/passes/gbuffer_pass.cpp:212:31: warning: unused',
  '  516 | void TaaPass::visit(Node& node, float dt) {',
  'DB_PASS is set in the environment',
  'docker run -u 1000:1000 img',
  'git push -u origin main',
  'curl -u "$USER:$PASS" https://x',
  'curl -u alice https://x',
  'curl -H "Content-Type: application/json" https://x',
  'a=b&c=d;e=f',
  'the password is required',
  'token budget 4096, the token limit is 50000',
  'password hashing with bcrypt',
  'secret rotation happens in v2 of the policy',
  'the primary key user_id_and_created_at_2024 is fine',
  'press the key F12 and see m-21f9a32a',
  // A secret name with only blanks before its value, where the value is code or a size.
  '#define TOKEN_KIND TOKEN_IDENT',
  '#define PASSWORD_MAX 128',
  'src/auth.h:9:#define SESSION_TOKEN_HEADER session_token_header',
  'Name                 Value\n----                 -----\nPASSWORD_MIN_LENGTH  12\nAPI_TOKEN            $API_TOKEN',
  'TOKEN        expired',
  // Pairs that are not secrets (redact-pairs.ts): a list's items, a lookup's default, a name that is no value.
  "fields = ['password', 'username', 'email']",
  "t('password', 'Password')",
  "os.environ.get('API_KEY', 'fallbackValue99')",
  "define('DB_NAME', 'wordpress');",
  "define('DB_PASSWORD', getenv('DB_PASSWORD'));",
  '<password>${env.DB_PASS}</password>',
  '<property name="passwordEncoder" ref="bcryptEncoder"/>',
  '{"pwd": "/workspace/app"}',
  'let password: string = "";',
  'const tokenType: string = "Bearer";',
  'const token: string = await getToken();',
  // Code that redaction took for secrets (measured on an installed node_modules): member accesses, names,
  // constants, expressions, a value that opens a bracket, a spaced assignment read as prose.
  "     * @param {string | null | undefined} [opts.apiKey=process.env['ANTHROPIC_API_KEY'] ?? null]",
  'export type CredentialOption = (typeof CREDENTIAL_OPTIONS)[number];',
  'const rejectUnsupportedCredentials = (options, platform) => {',
  "const token = existing?.['access_token'];",
  'token: data.access_token,',
  'return { token: accessToken, expiresAt: expiresAt ?? null };',
  'const token = parsed.sessions_token;',
  'return template.replace(TEMPLATE_TOKEN_RE, (token) => inputField(input, TEMPLATE_FIELDS[token.slice(1, -1)]));',
  'const apiKeys = BETA_CLIENT_TOOL_UNION_KEYS;',
  'exports.BetaAPIKeyScopeMissingError = BetaAPIKeyScopeMissingError;',
  'const workSecret = opts?.workSecret || readEnv(\'WORK_SECRET\') || null;',
  'this.secret = toUint8Array(secret);',
  'RequestToken: "STRING_VALUE", // required',
  'static EXPIRED_CREDENTIAL_PURGE_INTERVAL_MS = 30_000;',
  // A development password of a local service (redact-dev-defaults.ts DEV_WORD).
  'REDIS_URL=redis://:devpass@localhost:6379/0',
  'DATABASE_URL=postgres://app:dev_password@127.0.0.1:5432/app',
  // Words between the password word and a verb that are not a value (PROSE_LATIN_FOR).
  'the password for the admin account is required',
  'the password for this account is stored in Vault',
  'Das Passwort für den Server ist erforderlich.',
  'the password reset link is https://example.test/reset',
];

describe('redact', () => {
  for (const c of SECRET_CORPUS) {
    it(`removes ${c.name}`, () => {
      const out = redact(c.text);
      expect(out).not.toContain(c.secret);
      expect(out).toContain(`[REDACTED:${c.kind}]`);
      expect(redact(out)).toBe(out);
    });
  }

  // A token joined to a word by `-` or `_`, as in a file name (`leak-ghp_….txt`, `old_sk_live_…-bak`): the
  // boundary once counted both as token characters, so the token stayed whole (tenth new-user trial, H1).
  // Every corpus token that is a whole token by its shape alone (not a value known by its name or place). Not an
  // encoding: base64 joined to a word (`leak-c2st…`) decodes out of step, a case this does not claim.
  for (const c of SECRET_CORPUS.filter((e) => e.kind !== 'base64_secret' && redact(e.secret) === `[REDACTED:${e.kind}]`)) {
    it(`removes ${c.name} joined to a word: leak-…, old_…`, () => {
      for (const text of [`touch leak-${c.secret}.txt`, `mv a old_${c.secret}-bak`, `creds-${c.secret}_2.csv`]) {
        const out = redact(text);
        expect(out, text).not.toContain(c.secret);
        expect(out, text).toContain(`[REDACTED:${c.kind}]`);
      }
    });
  }

  it('keeps the name of a secret assignment and the host of a URL', () => {
    expect(redact('GITHUB_TOKEN=ghp_FAKE0a1B2c3D4e5F6g7H8i9J0kLmNoPqRsTu')).toBe('GITHUB_TOKEN=[REDACTED:github_token]');
    expect(redact('DB_PASSWORD=FAKEhunter2 x')).toBe('DB_PASSWORD=[REDACTED:password] x');
    expect(redact('postgresql://u:FAKEpw1234@db.internal:5432/x')).toBe('postgresql://u:[REDACTED:url_password]@db.internal:5432/x');
    // A development password is one only on a local host.
    expect(redact('redis://:devpass@cache.prod.example:6379')).toBe('redis://:[REDACTED:url_password]@cache.prod.example:6379');
    expect(redact('a\n-----BEGIN EC PRIVATE KEY-----\nFAKE\n-----END EC PRIVATE KEY-----\nb')).toBe('a\n[REDACTED:private_key]\nb');
  });

  for (const text of HARMLESS) {
    it(`leaves ordinary text alone: ${text.slice(0, 50)}`, () => {
      expect(redact(text)).toBe(text);
    });
  }

  it('leaves nothing of the corpus in one combined document', () => {
    const doc = SECRET_CORPUS.map((c) => c.text).join('\n');
    const out = redact(doc);
    for (const c of SECRET_CORPUS) expect(out).not.toContain(c.secret);
    expect(out).not.toMatch(/FAKE[A-Za-z0-9]{4,}/);
  });
});

describe('isSecretName', () => {
  it('recognises secret names and rejects look-alikes', () => {
    for (const n of ['GITHUB_TOKEN', 'ANTHROPIC_API_KEY', 'dbPassword', 'client_secret', 'PRIVATE_KEY', 'AWS_SECRET_ACCESS_KEY', 'GOOGLE_CREDENTIALS', 'api-key', 'DB_PASS']) {
      expect(isSecretName(n), n).toBe(true);
    }
    for (const n of ['PWD', 'OLDPWD', 'max_tokens', 'TOKEN_FILE', 'PATH', 'HOME', 'tokenizer', 'SECRET_NAME', 'AWS_ACCESS_KEY_ID', 'author']) {
      expect(isSecretName(n), n).toBe(false);
    }
  });
});

describe('redactDeep', () => {
  it('redacts strings at any depth and values under secret keys, keeping the shape', () => {
    const input = {
      env: { GITHUB_TOKEN: 'FAKEplainvalue42', HOME: '/home/agent' },
      list: ['ok', 'AKIAFAKEEXAMPLE7Q2XN'],
      n: 3,
      nested: [{ password: 'FAKEpw' }],
      nil: null,
    };
    const out = redactDeep(input);
    expect(out).toEqual({
      env: { GITHUB_TOKEN: '[REDACTED:secret]', HOME: '/home/agent' },
      list: ['ok', '[REDACTED:aws_access_key_id]'],
      n: 3,
      nested: [{ password: '[REDACTED:password]' }],
      nil: null,
    });
    expect(input.env.GITHUB_TOKEN).toBe('FAKEplainvalue42');
  });
});

describe('findSecretKinds', () => {
  it('names the kinds found and nothing for clean text', () => {
    expect(findSecretKinds('x AKIAFAKEEXAMPLE7Q2XN and DB_PASSWORD=FAKEhunter2').sort()).toEqual(['aws_access_key_id', 'password']);
    expect(findSecretKinds('nothing here')).toEqual([]);
  });
});

describe('the shared fixtures', () => {
  const files = readdirSync(FIXTURES).filter((f) => f.endsWith('.labels.json'));
  it('has fixtures to check', () => expect(files.length).toBeGreaterThan(0));
  for (const f of files) {
    it(`removes every forbidden secret of ${f}`, () => {
      const labels = JSON.parse(readFileSync(join(FIXTURES, f), 'utf8')) as { forbidden: string[] };
      const transcript = readFileSync(join(FIXTURES, f.replace('.labels.json', '.json')), 'utf8');
      const asText = redact(transcript);
      const asValue = JSON.stringify(redactDeep(JSON.parse(transcript)));
      for (const s of labels.forbidden) {
        expect(asText).not.toContain(s);
        expect(asValue).not.toContain(s);
      }
      // Every fake secret in the fixtures contains FAKE; none may survive as a token.
      expect(asValue).not.toMatch(/[A-Za-z0-9_-]*FAKE[A-Za-z0-9_-]{3,}/);
    });
  }
});
