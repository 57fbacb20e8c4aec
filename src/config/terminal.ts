/**
 * Text for a terminal: control characters shown as `\xNN`, line breaks and tabs kept. What mnemara prints carries
 * strings the model and the run control (commands, file names, lessons, log fields); written raw, an escape
 * sequence cleared the screen, forged a "✓ all tests passed" line and retitled the window (thirteenth trial F15).
 * mnemara prints no escape sequence of its own. `--json` needs none of this: JSON escapes them itself. Pure.
 */
export function terminalText(text: string): string {
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}
