import { describe, expect, it } from 'vitest';
import { redact, redactDeep } from '../../src/memory/redact.js';

/**
 * Issue 10, item 8 (third new-user trial): `"token_uri": "https://oauth2.googleapis.com/token"` of a GCP
 * service-account key was redacted: the name says token, but the value is a public URL. A plain http(s) URL
 * under a name that says secret is where a secret is fetched, not the secret; a URL that carries a credential
 * (userinfo, a query or fragment parameter, a random token as a path segment) still is one, wherever it stands.
 */
const SERVICE_ACCOUNT = {
  type: 'service_account',
  project_id: 'demo-proj',
  private_key_id: 'FAKE3b1e2c9d8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b',
  private_key: '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANFAKEFAKE\n-----END PRIVATE KEY-----\n',
  client_email: 'deployer@demo-proj.iam.gserviceaccount.com',
  client_id: '112233445566778899001',
  auth_uri: 'https://accounts.google.com/o/oauth2/auth',
  token_uri: 'https://oauth2.googleapis.com/token',
  auth_provider_x509_cert_url: 'https://www.googleapis.com/oauth2/v1/certs',
  client_x509_cert_url: 'https://www.googleapis.com/robot/v1/metadata/x509/deployer%40demo-proj.iam.gserviceaccount.com',
  client_secret: 'FAKEcs-Zt5wQ9nLm2XkR7vB4pHc8J',
  universe_domain: 'googleapis.com',
};
const PUBLIC = ['auth_uri', 'token_uri', 'auth_provider_x509_cert_url', 'client_x509_cert_url'] as const;
const SECRET = ['FAKE3b1e2c9d8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b', 'MIIEvQIBADANFAKEFAKE', 'FAKEcs-Zt5wQ9nLm2XkR7vB4pHc8J'];

describe('a public URL under a name that says secret', () => {
  it.each([
    ['service-account JSON, pretty', JSON.stringify(SERVICE_ACCOUNT, null, 2)],
    ['service-account JSON, one line', JSON.stringify(SERVICE_ACCOUNT)],
    ['serialized inside a JSON string', JSON.stringify({ output: JSON.stringify(SERVICE_ACCOUNT, null, 2) })],
    ['YAML', Object.entries(SERVICE_ACCOUNT).map(([k, v]) => `${k}: ${JSON.stringify(v)}`).join('\n')],
  ])('%s: keeps the four URLs, redacts the key, its id and the client secret', (_name, text) => {
    const out = redact(text);
    for (const key of PUBLIC) expect(out).toContain(SERVICE_ACCOUNT[key].replace(/"/g, ''));
    for (const s of SECRET) expect(out).not.toContain(s);
    expect(redact(out)).toBe(out);
  });

  it('keeps them in a parsed object too (redactDeep, by key)', () => {
    const out = redactDeep(SERVICE_ACCOUNT);
    for (const key of PUBLIC) expect(out[key]).toBe(SERVICE_ACCOUNT[key]);
    expect(out.private_key_id).toBe('[REDACTED:secret]');
    expect(out.client_secret).toBe('[REDACTED:secret]');
    expect(JSON.stringify(out)).not.toContain('MIIEvQIBADANFAKEFAKE');
  });

  it('keeps plain URLs under other secret-sounding names, in env and YAML', () => {
    for (const text of [
      'OAUTH_TOKEN_URI=https://login.example.com/oauth2/v2.0/token',
      'token_endpoint_auth: https://auth.example.com/token?prompt=consent',
      'SECRET_LOCATION=https://vault.example.com/v1/secret/data/app',
      '--auth-uri https://accounts.google.com/o/oauth2/auth',
    ]) {
      expect(redact(text), text).toBe(text);
    }
  });

  it('still redacts a URL that carries a credential, under any name', () => {
    const cases: Array<[string, string]> = [
      ['token_uri: https://svc:FAKEpw1234@auth.example.com/token', 'FAKEpw1234'],
      ['GIT_TOKEN=https://FAKEtok1234567890@git.example.com/r.git', 'FAKEtok1234567890'],
      ['"token_uri": "https://auth.example.com/token?access_token=FAKEat1234567"', 'FAKEat1234567'],
      ['CALLBACK=https://api.example.com/cb?access_token=FAKEat7654321&x=1', 'FAKEat7654321'],
      ['DOWNLOAD=https://bucket.example.com/f.tgz?sig=FAKEsig1234567890', 'FAKEsig1234567890'],
      ['redirect_uri: https://app.example.com/cb#id_token=FAKEidtok123456', 'FAKEidtok123456'],
      ['WEBHOOK_SECRET=https://hooks.example.com/in/FAKEq8Zr2Lx9Vb4Nc7Mw1Kd6', 'FAKEq8Zr2Lx9Vb4Nc7Mw1Kd6'],
      ['auth_token: https://auth.example.com/t?X-Amz-Signature=FAKE0a1b2c3d4e5f', 'FAKE0a1b2c3d4e5f'],
    ];
    for (const [text, secret] of cases) {
      const out = redact(text);
      expect(out, text).not.toContain(secret);
      expect(out, text).toMatch(/\[REDACTED:[a-z_]+\]/);
      expect(redact(out)).toBe(out);
    }
  });
});
