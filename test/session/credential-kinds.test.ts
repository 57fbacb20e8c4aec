import { describe, expect, it } from 'vitest';
import { classifyCredentialFile } from '../../src/session/credential-kinds.js';

/** Issue 10, item 8: a credential file is known by its whole content, never by its name or by one line of it. */
describe('classifyCredentialFile', () => {
  it.each([
    ['GCP service-account key', JSON.stringify({ type: 'service_account', private_key: '-----BEGIN PRIVATE KEY-----\nMIIEvFAKE\n-----END PRIVATE KEY-----\n' })],
    ['PEM private key', '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaFAKE\n-----END OPENSSH PRIVATE KEY-----\n'],
    ['PEM private key', '-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,FAKE\n\nMIIEFAKE\n-----END RSA PRIVATE KEY-----\n-----BEGIN CERTIFICATE-----\nMIIFAKE\n-----END CERTIFICATE-----\n'],
    ['AWS credentials file', '[default]\naws_access_key_id = AKIAFAKEEXAMPLE7Q2XN\naws_secret_access_key = FAKEsecret\n\n[prod]\nregion = eu-west-1\n'],
    ['.netrc', 'machine api.example.com\n  login bot\n  password FAKEpw\n\nmachine other login x password y\n'],
    ['.pgpass', '# local\ndb.internal:5432:app:app:FAKEpw\n*:*:*:postgres:FAKEpw2\n'.replace('*:*:*', 'localhost:*:*')],
    ['Docker config with registry auths', JSON.stringify({ auths: { 'ghcr.io': { auth: 'ZmFrZTpGQUtF' } } })],
    ['kubeconfig with credentials', 'apiVersion: v1\nkind: Config\nusers:\n- name: admin\n  user:\n    client-key-data: LS0tFAKE\n'],
    ['.git-credentials', 'https://bot:FAKEtoken@github.com\n'],
  ])('%s', (kind, content) => {
    expect(classifyCredentialFile(content)).toBe(kind);
  });

  it('says no to code, docs and configs that only mention one', () => {
    for (const content of [
      'export const sample = `-----BEGIN PRIVATE KEY-----\nMIIB\n-----END PRIVATE KEY-----`;\nexport const n = 1;\n',
      '# Setup\nPut `aws_secret_access_key = …` in ~/.aws/credentials.\n',
      JSON.stringify({ name: 'app', version: '1.0.0', scripts: { test: 'vitest' } }),
      JSON.stringify({ type: 'service_account', private_key: '' }),
      JSON.stringify({ credsStore: 'desktop', auths: { 'ghcr.io': {} } }),
      'machine learning notes\nwe tried a password manager\n',
      'apiVersion: v1\nkind: Config\nclusters: []\n',
      '',
    ]) expect(classifyCredentialFile(content), content).toBeNull();
  });
});
