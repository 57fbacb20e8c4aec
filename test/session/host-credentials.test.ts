/**
 * Thirteenth new-user trial F1: the user's own `.npmrc` token, `.env` keys and a password in the remote URL of
 * `.git/config` went into the store with the first fresh copy, without a word. They are kept (the user's
 * project as it is), and now named once, with the way to leave them out. Dependency folders (which ship test keys
 * and example tokens), templates and ignored paths are not named.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hostCredentialFiles, hostCredentialsNotice } from '../../src/session/host-credentials.js';
import { tempDir } from '../snapshot/helpers.js';

function project(): string {
  const ws = tempDir();
  const put = (path: string, text: string | Buffer): void => {
    mkdirSync(join(ws, path, '..'), { recursive: true });
    writeFileSync(join(ws, path), text);
  };
  put('.env', 'AWS_ACCESS_KEY_ID=AKIA2OGYBAH6STRNGXYZ\nAWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYZZFAKE19KEY\n');
  put('.env.example', 'AWS_SECRET_ACCESS_KEY=changeme\n');
  put('.npmrc', '//registry.npmjs.org/:_authToken=npm_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789\n');
  put('packages/web/.npmrc', 'registry=https://registry.npmjs.org/\n');
  put('.git/config', '[remote "origin"]\n\turl = https://deploy:Xk9mQ2vLp7zFake@git.example.com/team/app.git\n');
  put('.git/objects/ab/cdef', 'x');
  put('deploy/keystore.p12', Buffer.from([0x30, 0x82, 0x00, 0x01, 0x00, 0x02]));
  put('node_modules/public-encrypt/test/test_key.pem', '-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAfake\n-----END RSA PRIVATE KEY-----\n');
  put('node_modules/pkg/.npmrc', '//registry.npmjs.org/:_authToken=npm_ZyXwVuTsRqPoNmLkJiHgFeDcBa9876543210\n');
  put('config/ci/.env.staging', 'DB_PASSWORD=Sommer2024!Geheim\n');
  put('src/app.ts', 'export const x = 1;\n');
  return ws;
}

describe('the credential files a fresh copy takes into the store', () => {
  it('are named, outside dependencies, templates and what snapshot.ignore leaves out', async () => {
    const ws = project();
    expect(await hostCredentialFiles(ws, [])).toEqual(['.env', '.git/config', '.npmrc', 'config/ci/.env.staging', 'deploy/keystore.p12']);
    expect(await hostCredentialFiles(ws, ['.env', '.env.staging'])).toEqual(['.git/config', '.npmrc', 'deploy/keystore.p12']);
    const notice = hostCredentialsNotice(ws, await hostCredentialFiles(ws, []));
    expect(notice).toMatchObject({ kind: 'host-credentials', file: ws });
    expect(notice?.message).toContain('5 file(s)');
    expect(notice?.hint).toContain('--set snapshot.ignore=.env,.git/config,.npmrc');
    // The notice names files, never their secrets.
    expect(JSON.stringify(notice)).not.toMatch(/npm_AbCd|Xk9mQ2vLp7zFake|wJalrXUtnFEMI/);
  });

  it('names a configuration file holding a literal password, not one holding a reference (trial 21 F9)', async () => {
    const ws = tempDir();
    mkdirSync(join(ws, 'config'), { recursive: true });
    writeFileSync(join(ws, 'config.yml'), 'db:\n  host: db.internal\n  password: YamlPw_T21qFake\n');
    writeFileSync(join(ws, 'config', 'database.yml'), 'production:\n  password: <%= ENV["DB_PASSWORD"] %>\n');
    writeFileSync(join(ws, 'config', 'settings.json'), '{"theme": "dark", "retries": 3}\n');
    expect(await hostCredentialFiles(ws, [])).toEqual(['config.yml']);
  });

  // Re-trial of trial 21: a compose file's `POSTGRES_PASSWORD`, a Helm `values.yml`, a plain YAML value with a quote
  // inside were not named (only files named like config were read, and the value stopped at the quote).
  it('names every file of a configuration format that holds a literal secret, whatever its name', async () => {
    const ws = tempDir();
    const put = (path: string, text: string): void => {
      mkdirSync(join(ws, path, '..'), { recursive: true });
      writeFileSync(join(ws, path), text);
    };
    put('docker-compose.yml', 'services:\n  db:\n    image: postgres:16\n    environment:\n      POSTGRES_PASSWORD: ComposePw_Re22Fake\n');
    put('deploy/compose.yaml', 'services:\n  db:\n    environment:\n      - POSTGRES_PASSWORD=ComposeList_Re22Fake\n');
    put('chart/values.yml', 'db_password: DbPw_Re22Fake\n');
    put('conf/app.yaml', 'password: Quote"d#Pw_Re22Fake\n');
    put('deploy/local.compose.yml', 'services:\n  db:\n    environment:\n      POSTGRES_PASSWORD: ${POSTGRES_PASSWORD}\n');
    put('.github/workflows/ci.yml', 'jobs:\n  test:\n    steps:\n      - run: npm test\n        env:\n          TOKEN: ${{ secrets.TOKEN }}\n');
    put('i18n/en.yml', 'greeting: Hello\nfarewell: Bye\n');
    put('node_modules/pkg/fixtures/values.yml', 'db_password: DepPw_Re22Fake\n');
    expect(await hostCredentialFiles(ws, [])).toEqual(['chart/values.yml', 'conf/app.yaml', 'deploy/compose.yaml', 'docker-compose.yml']);
  });

  it('says nothing for a project without credentials', async () => {
    const ws = tempDir();
    writeFileSync(join(ws, '.npmrc'), 'save-exact=true\n');
    writeFileSync(join(ws, '.env'), 'PORT=3000\nNODE_ENV=development\n');
    expect(hostCredentialsNotice(ws, await hostCredentialFiles(ws, []))).toBeNull();
  });
});
