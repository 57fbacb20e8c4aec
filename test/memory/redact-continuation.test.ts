import { describe, expect, it } from 'vitest';
import { redact } from '../../src/memory/redact.js';

/**
 * Issue 10, item 8 (new-user trial): the second half of a value split with a backslash-newline survived. The shell
 * joins `\` ⏎ into one word, so redaction does too, whatever the value's shape.
 */
describe('a secret continued on the next line with a backslash', () => {
  it.each([
    ['bearer header', 'curl -H "Authorization: Bearer abcd\\\nefgh5678ijkl9012mnopQRST" https://api.example.com', 'efgh5678ijkl9012mnopQRST'],
    ['export', 'export TOKEN=ab12\\\ncd34ef56gh78', 'cd34ef56gh78'],
    ['export, head already long', 'export API_TOKEN=ab12cd34ef\\\n56gh78ij90', '56gh78ij90'],
    ['password flag', 'deploy --password Tr0ub4\\\ndor3xyz --env prod', 'dor3xyz'],
    ['client flag', 'mysql -u root -pS3cr\\\net42xyz shop', 'et42xyz'],
    ['indented wrapped token', 'Authorization: Bearer abcd12\\\n    efgh5678ijkl9012mnop', 'efgh5678ijkl9012mnop'],
  ])('%s', (_name, input, tail) => {
    const out = redact(input);
    expect(out).not.toContain(tail);
    expect(out).toMatch(/\[REDACTED:[a-z_]+\]/);
    expect(redact(out)).toBe(out);
  });

  it('leaves continuations that hold no secret exactly as written', () => {
    for (const text of [
      'SRCS = main.c util.c\\\n  io.c\nall: $(SRCS)',
      'docker run --rm \\\n  -v "$PWD":/src \\\n  -e TOKEN=$TOKEN img',
      '#define MAX(a, b) ((a) > (b) ?\\\n  (a) : (b))',
      'export GITHUB_TOKEN=ghp_FAKE0a1B2c3D4e5F6g7H8i9J0kLmNoPqRsTu \\\n  && npm publish',
      'curl -sS https://example.com/install.sh\\\n  | sh',
    ]) {
      const out = redact(text);
      // Only the whole token on the first line may go; every line break stays.
      expect(out.split('\n').length, text).toBe(text.split('\n').length);
    }
    expect(redact('SRCS = main.c util.c\\\n  io.c')).toBe('SRCS = main.c util.c\\\n  io.c');
  });

  it('keeps an indented next word apart when the line before was already redacted whole', () => {
    expect(redact('export API_TOKEN=ab12cd34ef56\\\n  --verbose')).toBe('export API_TOKEN=[REDACTED:secret]\\\n  --verbose');
  });
});
