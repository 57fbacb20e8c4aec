import { describe, expect, it } from 'vitest';
import { tokenize } from '../../src/memory/phase1/shell-words.js';
import { redact } from '../../src/memory/redact.js';

/**
 * The positional redactor reads a command's words with the project's shell tokenizer (`tokenize`), not a splitter
 * of its own: a word is what the shell makes of it, so `--user="alice%pw"` is one word (the old splitter cut it
 * at the quote and the password stayed). `tokenize` gained `literalBackslashes` for it: a redactor puts values
 * back as written, and `net use \\srv\share` is cmd.exe's, not the shell's.
 */
describe('tokenize with literalBackslashes', () => {
  const words = (s: string, literal: boolean): string[] =>
    tokenize(s, { literalBackslashes: literal }).filter((t) => t.kind === 'word').map((t) => t.value);

  it('keeps every backslash, and still lets one keep the next character from ending a word or a string', () => {
    expect(words('net use \\\\srv\\share pw', true)).toEqual(['net', 'use', '\\\\srv\\share', 'pw']);
    expect(words('net use \\\\srv\\share pw', false)).toEqual(['net', 'use', '\\srv' + 'share', 'pw']);
    expect(words('echo "a\\"b" c\\ d', true)).toEqual(['echo', 'a\\"b', 'c\\ d']);
    expect(words('echo "a\\"b" c\\ d', false)).toEqual(['echo', 'a"b', 'c d']);
  });

  it('gives offsets into the command as written, quotes included', () => {
    const cmd = `smbclient //fs/s --user="alice%pw" -U'bob%x'`;
    for (const t of tokenize(cmd, { literalBackslashes: true })) expect(cmd.slice(t.start, t.end)).toBe(t.raw);
  });
});

describe('positional passwords in words quoted in parts', () => {
  it.each([
    ['--user="a%pw"', 'smbclient //fs/share --user="alice%Smb42pwd" -c ls', 'smbclient //fs/share --user="alice%[REDACTED:password]" -c ls'],
    ["-U'a%pw'", "smbclient //fs/share -U'alice%Smb42pwd' -c ls", "smbclient //fs/share -U'alice%[REDACTED:password]' -c ls"],
    ['escaped quote inside', 'mysqladmin -u root password "My\\"pw42x"', 'mysqladmin -u root password "[REDACTED:password]"'],
    ['quoted in three parts', `htpasswd -b f alice 'Blu'"men"42x`, `htpasswd -b f alice '[REDACTED:password]'`],
  ])('%s', (_name, input, expected) => {
    expect(redact(input)).toBe(expected);
  });
});
