import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultFixtures } from '../../scripts/eval-memory/labels.js';
import { findSecretKinds, isSecretName, redact, redactDeep } from '../../src/memory/redact.js';

const FIXTURES = defaultFixtures();

/**
 * The corpus of fake secrets: every `secret` must be gone after redaction, and `kind` is the marker expected.
 * Every secret contains FAKE (as in the shared fixtures) so that a leak is easy to grep for.
 */
export const SECRET_CORPUS: Array<{ name: string; text: string; secret: string; kind: string }> = [
  { name: 'anthropic key', text: 'key sk-ant-api03-FAKEq9Xv2Lm7Rt4Wz8Kp1Ns6Bd3Hf0Jc5Gy-Te2Ua7Ro4Ei9Wq1-FAKEAA in log', secret: 'sk-ant-api03-FAKEq9Xv2Lm7Rt4Wz8Kp1Ns6Bd3Hf0Jc5Gy-Te2Ua7Ro4Ei9Wq1-FAKEAA', kind: 'anthropic_key' },
  { name: 'anthropic admin key', text: 'sk-ant-admin01-FAKE8s7d6f5g4h3j2k1l0', secret: 'sk-ant-admin01-FAKE8s7d6f5g4h3j2k1l0', kind: 'anthropic_key' },
  { name: 'openai legacy key', text: 'OpenAI: sk-FAKE1234567890abcdefT3BlbkFJabcdef1234567890', secret: 'sk-FAKE1234567890abcdefT3BlbkFJabcdef1234567890', kind: 'openai_key' },
  { name: 'openai project key', text: 'using sk-proj-FAKE_a1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6', secret: 'sk-proj-FAKE_a1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6', kind: 'openai_key' },
  { name: 'aws access key id', text: 'aws_access_key_id = AKIAFAKEEXAMPLE7Q2XN', secret: 'AKIAFAKEEXAMPLE7Q2XN', kind: 'aws_access_key_id' },
  { name: 'aws session key id', text: '"AccessKeyId": "ASIAFAKE5EXAMPLE7Q2Z"', secret: 'ASIAFAKE5EXAMPLE7Q2Z', kind: 'aws_access_key_id' },
  { name: 'aws secret env', text: 'AWS_SECRET_ACCESS_KEY=FAKEk7Mdq2Vn8rXzL0pWbT4yHs9eJc3uGa1FAKE0', secret: 'FAKEk7Mdq2Vn8rXzL0pWbT4yHs9eJc3uGa1FAKE0', kind: 'secret' },
  { name: 'aws secret ini', text: '[default]\naws_secret_access_key = FAKEwJalrXUtnFEMI/K7MDENG/bPxRfiCYFAKEKEY\n', secret: 'FAKEwJalrXUtnFEMI/K7MDENG/bPxRfiCYFAKEKEY', kind: 'secret' },
  { name: 'aws secret json', text: '{"SecretAccessKey": "FAKEwJalrXUtnFEMI/K7MDENG+bPxRfiCYFAKEKEY"}', secret: 'FAKEwJalrXUtnFEMI/K7MDENG+bPxRfiCYFAKEKEY', kind: 'secret' },
  { name: 'github classic ghp', text: 'token ghp_FAKE0a1B2c3D4e5F6g7H8i9J0kLmNoPqRsTu', secret: 'ghp_FAKE0a1B2c3D4e5F6g7H8i9J0kLmNoPqRsTu', kind: 'github_token' },
  { name: 'github gho', text: 'gho_FAKEabcdefghijklmnopqrstuvwxyz012345', secret: 'gho_FAKEabcdefghijklmnopqrstuvwxyz012345', kind: 'github_token' },
  { name: 'github ghs', text: 'x-access-token:ghs_FAKE16C7e42F292c6912E7710c838347Ae178B4a@github.com', secret: 'ghs_FAKE16C7e42F292c6912E7710c838347Ae178B4a', kind: 'github_token' },
  { name: 'github ghu', text: 'ghu_FAKEabcdefghijklmnopqrstuvwxyz012345 ', secret: 'ghu_FAKEabcdefghijklmnopqrstuvwxyz012345', kind: 'github_token' },
  { name: 'github ghr', text: '(ghr_FAKEabcdefghijklmnopqrstuvwxyz012345)', secret: 'ghr_FAKEabcdefghijklmnopqrstuvwxyz012345', kind: 'github_token' },
  { name: 'github fine-grained', text: 'github_pat_11FAKE0Q0a1b2c3d4e5f6g7_h8i9j0k1l2m3n4o5p6q7r8s9t0u1v2w3x4y5z6A7B8C9D0E1F2G3H4', secret: 'github_pat_11FAKE0Q0a1b2c3d4e5f6g7_h8i9j0k1l2m3n4o5p6q7r8s9t0u1v2w3x4y5z6A7B8C9D0E1F2G3H4', kind: 'github_token' },
  { name: 'slack bot token', text: 'SLACK=xoxb-FAKE123456-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx', secret: 'xoxb-FAKE123456-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx', kind: 'slack_token' },
  { name: 'slack user token', text: 'xoxp-FAKE-1234567890-abcdefabcdef', secret: 'xoxp-FAKE-1234567890-abcdefabcdef', kind: 'slack_token' },
  { name: 'slack webhook', text: 'curl -X POST https://hooks.slack.com/services/TFAKE0000/BFAKE0000/FAKEXXXXXXXXXXXXXXXXXXXX -d x', secret: 'TFAKE0000/BFAKE0000/FAKEXXXXXXXXXXXXXXXXXXXX', kind: 'slack_webhook' },
  { name: 'google api key', text: 'maps key=AIzaSyFAKE-1234567890abcdefghijklmnopq', secret: 'AIzaSyFAKE-1234567890abcdefghijklmnopq', kind: 'google_api_key' },
  { name: 'stripe live', text: 'stripe.api_key = "sk_live_FAKE51H8u2e3abcdefGHIJKL"', secret: 'sk_live_FAKE51H8u2e3abcdefGHIJKL', kind: 'stripe_key' },
  { name: 'stripe test', text: 'sk_test_FAKE4eC39HqLyjWDarjtT1zdp7dc', secret: 'sk_test_FAKE4eC39HqLyjWDarjtT1zdp7dc', kind: 'stripe_key' },
  { name: 'stripe restricted', text: 'rk_live_FAKE51H8u2e3abcdefGHIJKL', secret: 'rk_live_FAKE51H8u2e3abcdefGHIJKL', kind: 'stripe_key' },
  { name: 'bearer header', text: 'curl -H "Authorization: Bearer FAKEtok3nAbCdEf0123456789xyz" https://api', secret: 'FAKEtok3nAbCdEf0123456789xyz', kind: 'bearer_token' },
  { name: 'basic auth header', text: 'Authorization: Basic RkFLRTp1c2VyOnBhc3N3b3JkMTIz', secret: 'RkFLRTp1c2VyOnBhc3N3b3JkMTIz', kind: 'bearer_token' },
  {
    name: 'jwt',
    text: 'cookie session=eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJGQUtFIiwibmFtZSI6IkZBS0UifQ.FAKEsig_abc123-XYZ',
    secret: 'eyJzdWIiOiJGQUtFIiwibmFtZSI6IkZBS0UifQ',
    kind: 'jwt',
  },
  {
    name: 'rsa private key',
    text: 'key:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAFAKEFAKEFAKE\nabcdefghijklmnop\n-----END RSA PRIVATE KEY-----\nnext line',
    secret: 'MIIEowIBAAKCAQEAFAKEFAKEFAKE',
    kind: 'private_key',
  },
  {
    name: 'openssh private key',
    text: '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAFAKE\n-----END OPENSSH PRIVATE KEY-----',
    secret: 'b3BlbnNzaC1rZXktdjEAAAAFAKE',
    kind: 'private_key',
  },
  { name: 'truncated private key', text: '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANFAKEFAKE\n[output truncated]', secret: 'MIIEvQIBADANFAKEFAKE', kind: 'private_key' },
  {
    name: 'postgres url password',
    text: 'DATABASE_URL=postgresql://ledger_app:FAKEpg-s3cr3t-Harbor-2291@db.harbor-ledger.internal:5432/ledger',
    secret: 'FAKEpg-s3cr3t-Harbor-2291',
    kind: 'url_password',
  },
  { name: 'https url password', text: 'git clone https://bob:FAKEpass%21word@git.example.com/repo.git', secret: 'FAKEpass%21word', kind: 'url_password' },
  { name: 'env password', text: 'DB_PASSWORD=FAKEhunter2', secret: 'FAKEhunter2', kind: 'password' },
  { name: 'env pass', text: 'DB_PASS=FAKEhunter3', secret: 'FAKEhunter3', kind: 'password' },
  { name: 'export quoted', text: 'export MY_API_KEY="FAKE abc def 123"', secret: 'FAKE abc def 123', kind: 'secret' },
  { name: 'single quoted', text: "export SERVICE_TOKEN='FAKE-tok-998877'", secret: 'FAKE-tok-998877', kind: 'secret' },
  { name: 'yaml password', text: 'db:\n  password: FAKEyamlPw99\n  host: db', secret: 'FAKEyamlPw99', kind: 'password' },
  { name: 'yaml client secret', text: 'client_secret: "FAKEclientsecret"', secret: 'FAKEclientsecret', kind: 'secret' },
  { name: 'json private key name', text: '{"private_key": "FAKE-not-a-pem-but-secret", "x": 1}', secret: 'FAKE-not-a-pem-but-secret', kind: 'secret' },
  { name: 'json credentials', text: '{ "credentials" : "FAKEcreds123" }', secret: 'FAKEcreds123', kind: 'secret' },
  { name: 'escaped json in json', text: '{"output":"{\\"apiKey\\": \\"FAKEesc4p3d\\"}"}', secret: 'FAKEesc4p3d', kind: 'secret' },
  { name: 'camelCase password', text: 'dbPassword=FAKEcamel1', secret: 'FAKEcamel1', kind: 'password' },
  { name: 'access key name', text: 'MINIO_ACCESS_KEY=FAKEminio12345', secret: 'FAKEminio12345', kind: 'secret' },
  { name: 'cli flag', text: 'mysql --password FAKEflagpw1 -h db', secret: 'FAKEflagpw1', kind: 'password' },
  { name: 'cli flag with =', text: 'tool --api-key=FAKEflagkey2 run', secret: 'FAKEflagkey2', kind: 'secret' },
  { name: 'serialized jsonl line', text: '{"type":"tool_result","output":"GITHUB_TOKEN=ghp_FAKE0a1B2c3D4e5F6g7H8i9J0kLmNoPqRsTu\\nHOME=/home/agent"}', secret: 'ghp_FAKE0a1B2c3D4e5F6g7H8i9J0kLmNoPqRsTu', kind: 'github_token' },
];

/** Ordinary text that must come out unchanged. */
const HARMLESS: string[] = [
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

  it('keeps the name of a secret assignment and the host of a URL', () => {
    expect(redact('GITHUB_TOKEN=ghp_FAKE0a1B2c3D4e5F6g7H8i9J0kLmNoPqRsTu')).toBe('GITHUB_TOKEN=[REDACTED:github_token]');
    expect(redact('DB_PASSWORD=FAKEhunter2 x')).toBe('DB_PASSWORD=[REDACTED:password] x');
    expect(redact('postgresql://u:FAKEpw1234@db.internal:5432/x')).toBe('postgresql://u:[REDACTED:url_password]@db.internal:5432/x');
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
