/**
 * Eleventh new-user trial (high): an AWS secret access key written beside its key id with no name (`AKIA… wJalr…`)
 * kept the secret in the transcript and `sessions/`: the id's shape rule took the id, nothing saw the secret.
 */
import { describe, expect, it } from 'vitest';
import { redact } from '../../src/memory/redact.js';

const ID = 'AKIAQ7XW3M5N2P4FAKE8';
const KEY = 'FAKEwJalrXUtnFEMI/K7MDENG+bPxRfiCYq3LmNo';

describe('an AWS secret access key beside its key id', () => {
  it.each([
    ['space', `${ID} ${KEY}`],
    ['CSV', `Access key ID,Secret access key\n${ID},${KEY}\n`],
    ['secret first', `${KEY}\t${ID}`],
    ['quoted pair', `aws configure set: "${ID}" "${KEY}"`],
    ['JSON-escaped lines of one record', `{"output":"id ${ID}\\nkey ${KEY}\\n"}`],
  ])('%s: the secret goes too', (_name, text) => {
    const out = redact(text);
    expect(out).not.toContain(KEY);
    expect(out).not.toContain(ID);
  });

  it('leaves a git id, a longer base64 run and a line without a key id', () => {
    const sha = '3f9a1c7e5b2d8f4a6c0e9b1d7f3a5c8e2b4d6f0a';
    const b64 = 'FAKEwJalrXUtnFEMIzK7MDENGbPxRfiCYq3LmNo9Pq8=';
    expect(redact(`${ID} at ${sha}`)).toContain(sha);
    expect(redact(`${ID} blob ${b64}`)).toContain(b64);
    expect(redact(`id is set\n${KEY}`)).toContain(KEY);
  });
});
