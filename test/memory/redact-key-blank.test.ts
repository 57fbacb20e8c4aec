import { describe, expect, it } from 'vitest';
import { expectGone, kept } from './redact-expect.js';

/** New-user trial 24: `aws_secret_access_key wJalr…`, a blank where the `=` was; the same for any secret-named key. */
describe('a secret-named key, a blank, a value of its shape', () => {
  it.each([
    ['aws_secret_access_key wJalrXUtnFEMI/K7MDENG/bPxRfiCYFAKEKEY9X', 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYFAKEKEY9X'],
    ['secret_access_key wJalrXUtnFEMI/K7MDENG/bPxRfiCYFAKEKEY12', 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYFAKEKEY12'],
    ['aws secret access key wJalrXUtnFEMI/K7MDENG/bPxRfiCYFAKEKEY12', 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYFAKEKEY12'],
    ['client_secret Zk8FAKEq2Lm7Rt4Wz8Kp1Ns6Bd3', 'Zk8FAKEq2Lm7Rt4Wz8Kp1Ns6Bd3'],
    ['then set apiKey Qw3FAKEr5Ty7Ui9Op1As2Df in the UI', 'Qw3FAKEr5Ty7Ui9Op1As2Df'],
  ])('%s', (text, value) => expectGone(text, value));

  it('keeps names with a word, a path or a hash after them', () => {
    kept([
      'aws_secret_access_key environment variable', 'client_secret is required', 'API_KEY ReadOnlyAccessPolicy',
      'aws_secret_access_key ~/.aws/credentials', 'secret_key 0123456789abcdef0123456789abcdef01234567', 'auth_token next_page_token_value',
    ]);
  });
});
