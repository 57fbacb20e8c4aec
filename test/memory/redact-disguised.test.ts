/**
 * Issue 10, fifth trial: forms that stayed in host transcripts, `sessions/`, progress lines, `--json` and the
 * model request. Each kind is tried with several prefixes and values (the kind, not one instance), each inside a
 * serialized JSONL tool result as well as bare, and each has look-alikes that must stay.
 */
import { describe, expect, it } from 'vitest';
import { REDACTION_VERSION, redact, redactDeep } from '../../src/memory/redact.js';

// Fake values, made up for these tests.
const TOKENS = [
  ['github_token', `ghp_${'Qw3eRt5yUi7oPa9sDf2gHj4kLz6xCv8bNm1q'}`],
  ['github_token', `gho_${'Lk9jHg7fDs5aPo3iUy1tRe8wQz6xCv4bNm2l'}`],
  ['stripe_key', 'sk_live_51HxKLzdQ2mW8rT4vB7nY3pA'],
  ['npm_token', `npm_${'Ab3De5Gh7Jk9Mn2Pq4St6Vw8Yz1Bc3Ef5Hi7'}`],
] as const;
const ESC = '\u001b';

/**
 * `text` bare and as a transcript record (a tool result, redacted as the transcript writer does: parsed, every
 * string); with `asLine`, also the serialized line redacted as text. None may hold `secret`.
 */
function expectGone(text: string, secret: string, asLine = false): string {
  const out = redact(text);
  expect(out, text).not.toContain(secret);
  const record = { type: 'tool_result', content: text };
  expect(JSON.stringify(redactDeep(record))).not.toContain(secret);
  if (asLine) expect(redact(JSON.stringify(record))).not.toContain(secret);
  return out;
}

describe('tokens cut by characters that do not show', () => {
  it('raised the redaction version (layouts written with the old rules are re-redacted once)', () => {
    expect(REDACTION_VERSION).toBeGreaterThanOrEqual(7);
  });
  for (const [kind, token] of TOKENS) {
    const cut = token.indexOf('_', 3) + 1 || 4;
    const [head, rest] = [token.slice(0, cut), token.slice(cut)];
    const half = Math.floor(rest.length / 2);
    it(`${kind}: ANSI bold, grep colour, zero-width characters, percent escapes`, () => {
      const forms = [
        `${head}${ESC}[1m${rest}${ESC}[0m`,
        `${ESC}[01;31m${ESC}[K${head}${ESC}[m${ESC}[K${rest}`,
        `${head}${rest.slice(0, half)}${ESC}[32m${rest.slice(half)}${ESC}[0m done`,
        `${head}${rest.slice(0, half)}\u200b${rest.slice(half)}`,
        `${head}${rest.slice(0, half)}\u200d${rest.slice(half)}`,
        `${head}\u2060${rest}`,
        `${head.slice(0, -1)}%5F${rest}`.replace('%5F-', '%2D'),
      ];
      for (const f of forms) {
        const out = expectGone(f, rest.slice(half), true);
        expect(out).toContain(`[REDACTED:${kind}]`);
      }
    });
    it(`${kind}: printf format and hex encoding`, () => {
      expectGone(`printf '${head}%s\\n' ${rest}`, rest);
      expectGone(`printf "${head}%s%s" ${rest.slice(0, half)} ${rest.slice(half)} > ~/.token`, rest.slice(half));
      const hex = Buffer.from(token).toString('hex');
      expect(expectGone(`echo ${hex} | xxd -r -p > key`, hex)).toBe('echo [REDACTED:hex_secret] | xxd -r -p > key');
      expectGone(`echo ${hex.toUpperCase()} | xxd -r -p`, hex.toUpperCase());
    });
  }
  it('leaves colour codes, zero-width characters, percent escapes, printf and hex that hide nothing', () => {
    const keep = [
      `${ESC}[32m✓${ESC}[0m 12 tests passed ${ESC}[2m(340ms)${ESC}[22m`,
      `${ESC}[01;31m${ESC}[Kghp_${ESC}[m${ESC}[K is the prefix of a GitHub token`,
      'https://example.com/search?q=a%20b%2Fc%5Fd&lang=en',
      'word\u200bjoiner\u200dsoft\u00adhyphen',
      "printf '%s\\n' hello world",
      "printf 'ghp_%s\\n' xxxxxxxxxxxxxxxx",
      `sha256 ${'9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08'}`,
      `git ${'3f786850e387550fdab836ed7e6dc881de23001b'}`,
      `echo ${Buffer.from('hello, world: nothing to see here').toString('hex')} | xxd -r -p`,
    ];
    for (const k of keep) expect(redact(k), k).toBe(k);
  });
});

describe('secrets given as arguments, where the command says what they are', () => {
  const cases: Array<[string, string]> = [
    ["CREATE USER 'app'@'%' IDENTIFIED BY 'Xr7pLq2mWz9';", 'Xr7pLq2mWz9'],
    ['create user app identified by "Tn4vBq8sKd2";', 'Tn4vBq8sKd2'],
    ["ALTER USER 'root'@'localhost' IDENTIFIED WITH mysql_native_password BY 'Pm3xZ7qLw1';", 'Pm3xZ7qLw1'],
    ['vault login s.Xk29fLmQp3RtZ8wYaB', 's.Xk29fLmQp3RtZ8wYaB'],
    ['vault login -no-print Mq8Ld3Rt9Zx2Wp', 'Mq8Ld3Rt9Zx2Wp'],
    ['aws configure set aws_secret_access_key wJalrXUtnFEMIK7MDENGbPxRfiCYzQ2', 'wJalrXUtnFEMIK7MDENGbPxRfiCYzQ2'],
    ['aws configure set profile.prod.aws_session_token FwoGZXIvYXdzEJr8Lq2', 'FwoGZXIvYXdzEJr8Lq2'],
    ['npm config set //registry.example.com/:_authToken Nq4Lx8Rt2Zp6', 'Nq4Lx8Rt2Zp6'],
    ['heroku config:set DB_PASSWORD=Hk7Lm2Qx9 -a app', 'Hk7Lm2Qx9'],
    ['rabbitmqctl add_user bob Rabb1tPw77', 'Rabb1tPw77'],
    ["rabbitmqctl change_password 'ci user' W4rRenPw9", 'W4rRenPw9'],
    ['curl --oauth2-bearer Oa2Tok3nZZ9xk https://api.example.com', 'Oa2Tok3nZZ9xk'],
    ['curl --proxy-user proxy:Pr0xyPw55 https://example.com', 'Pr0xyPw55'],
    ['TF_VAR_db_password=TfPw2024xx terraform apply', 'TfPw2024xx'],
    ['export TF_VAR_api_token="Tv8Kq3Lz7Wx"', 'Tv8Kq3Lz7Wx'],
    ['INPUT_GITHUB_TOKEN=Gi7Lm3Qx8Zp2 node action.js', 'Gi7Lm3Qx8Zp2'],
    ['db.example.com:5432:appdb:app:PgPassW0rd77', 'PgPassW0rd77'],
    ['*:*:*:postgres:Qz8Lm2Xw4Rt', 'Qz8Lm2Xw4Rt'],
    ['$ cat ~/.pgpass\nlocalhost:5433:*:deploy:Dp9Kx2Lm7Q\n', 'Dp9Kx2Lm7Q'],
  ];
  for (const [text, secret] of cases) {
    it(JSON.stringify(text.slice(0, 60)), () => {
      expectGone(text, secret);
    });
  }
  it('keeps what only looks like them', () => {
    const keep = [
      "CREATE USER 'app'@'%' IDENTIFIED BY '$APP_PW';",
      'vault login -method=oidc',
      'vault login',
      'vault login TOKEN',
      'aws configure set region eu-west-1',
      'npm config set registry https://registry.npmjs.org/',
      'rabbitmqctl add_user bob $RABBIT_PW',
      'TF_VAR_region=eu-west-1 terraform plan',
      'TF_VAR_instance_count=3',
      '12:30:45:100:ok',
      'localhost:5432:mydb:postgres:postgres',
      'root:x:0:0:root:/root:/bin/bash',
      'at Object.<anonymous> (src/app.ts:12:5)',
      'smbclient //srv/share -U alice%S3cretSmb1 -c ls'.replace('S3cretSmb1', '$PW'),
    ];
    for (const k of keep) expect(redact(k), k).toBe(k);
  });
});
