/**
 * Thirteenth new-user trial F15: a command the model ran (`echo hi # \e[2J\e[31mFAKE: ✓ all tests passed\e]0;t\a`)
 * and a file name holding ESC were printed raw: the screen cleared, a forged line, a new window title. Every
 * control character of printed text is shown as `\xNN`; line breaks, tabs and other scripts are kept.
 */
import { describe, expect, it } from 'vitest';
import { terminalText } from '../../src/config/terminal.js';

describe('terminalText', () => {
  it('shows every control character, C1 included, and keeps line breaks, tabs and text', () => {
    expect(terminalText('echo hi # \u001b[2J\u001b[31mFAKE: ✓ all tests passed\u001b]0;pwned\u0007')).toBe('echo hi # \\x1b[2J\\x1b[31mFAKE: ✓ all tests passed\\x1b]0;pwned\\x07');
    expect(terminalText('progress 10%\rprogress 99%\u009b2J\u007f')).toBe('progress 10%\\x0dprogress 99%\\x9b2J\\x7f');
    expect(terminalText('a\tb\nc — 日本語 ✓')).toBe('a\tb\nc — 日本語 ✓');
  });
});
