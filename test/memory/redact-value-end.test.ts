import { describe, expect, it } from 'vitest';
import { redact } from '../../src/memory/redact.js';

/**
 * Issue 10, item 8 (new-user trial): a secret value ends where the shell ends the word. `--password X --token Y;
 * echo done` lost its `;`, and `TOKEN=v|tee log` lost the pipe and the command after it.
 */
describe('a redacted value ends at a shell metacharacter', () => {
  it.each([
    ['flag then ;', 'tool --password X1234567 --token Y12345678; echo done', 'tool --password [REDACTED:password] --token [REDACTED:secret]; echo done'],
    ['flag then &&', 'tool --token Y12345678&& echo ok', 'tool --token [REDACTED:secret]&& echo ok'],
    ['flag then |', 'deploy --api-key Kx81mq02ZZ|grep -v warn', 'deploy --api-key [REDACTED:secret]|grep -v warn'],
    ['flag in a subshell', 'out=$(cli login --token Y12345678)', 'out=$(cli login --token [REDACTED:secret])'],
    ['flag then >', 'cli --secret Y12345678>log.txt', 'cli --secret [REDACTED:secret]>log.txt'],
    ['quoted flag keeps its quotes', 'gpg --passphrase "s3cret pass phrase" -c f; ls', 'gpg --passphrase "[REDACTED:password]" -c f; ls'],
    ['assignment then ;word', 'TOKEN=abc12345;echo hi', 'TOKEN=[REDACTED:secret];echo hi'],
    ['assignment then &&', 'export DB_PASSWORD=hunter2x&&npm test', 'export DB_PASSWORD=[REDACTED:password]&&npm test'],
    ['assignment then |', 'API_KEY=Zq81xx93kk|tee .env', 'API_KEY=[REDACTED:secret]|tee .env'],
    ['assignment in a subshell', '(export GITHUB_TOKEN=abcd1234efgh)', '(export GITHUB_TOKEN=[REDACTED:secret])'],
    ['assignment then a second assignment', 'A_TOKEN=abc12345;B=2 run', 'A_TOKEN=[REDACTED:secret];B=2 run'],
    ['client flag then ;', 'mysql -u root -pS3cret42;echo x', 'mysql -u root -p[REDACTED:password];echo x'],
    ['client flag then |', 'redis-cli -a S3cret64|head', 'redis-cli -a [REDACTED:password]|head'],
  ])('%s', (_name, input, expected) => {
    expect(redact(input)).toBe(expected);
    expect(redact(expected)).toBe(expected);
  });

  it('keeps a metacharacter that is inside the word (a .env value) as part of the value', () => {
    expect(redact('DB_PASSWORD=pa;ss4word\nHOST=db')).toBe('DB_PASSWORD=[REDACTED:password]\nHOST=db');
    expect(redact('API_TOKEN=ab&cd12345')).toBe('API_TOKEN=[REDACTED:secret]');
  });
});
