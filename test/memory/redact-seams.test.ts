import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { redact } from '../../src/memory/redact.js';
import { rememberingRedact } from '../../src/memory/redact-parts.js';
import { TranscriptWriter } from '../../src/transcript/writer.js';

/**
 * Issue 10, item 8 (third new-user trial): a token split inside a command's string. The tool's output (what
 * bash printed) was redacted, but the tool call's input kept the token: there the line break is the escape `\n`
 * and a continuation is `\\\n`, which the joining rules did not read. Every seam the output's rules join must be
 * joined in the input too, and in a serialized JSON line of either.
 */
const dir = mkdtempSync(join(tmpdir(), 'mnemara-seams-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What bash really prints for `command` (the tool's output), run in a scratch directory. */
const bashOutput = (command: string): string => execFileSync('bash', ['-c', command], { cwd: dir, encoding: 'utf8' });

// Each: the command the agent typed, and the part after the seam that must be gone from input and output alike.
const SPLIT_COMMANDS: Array<[string, string, string]> = [
  ['printf continuation, github token', "printf 'export TOK=ghp_FAKEab12\\\\\\nCD34ef56GH78ij90KL12mn34OP56' ; cat /dev/null", 'CD34ef56GH78ij90KL12mn34OP56'],
  ['printf continuation, secret-named value', "printf 'export API_TOKEN=FAKEab12\\\\\\ncd34ef56gh78\\n'", 'cd34ef56gh78'],
  ['echo -e newline inside a token', 'echo -e "sk-ant-api03-FAKEq9Xv2\\nLm7Rt4Wz8Kp1Ns6Bd3Hf0"', 'Lm7Rt4Wz8Kp1Ns6Bd3Hf0'],
  ["adjacent quotes 'ab''cd'", "echo export DB_PASSWORD='FAKEpw12''xy34zz56qq'", 'xy34zz56qq'],
  ['mixed quotes \'ab\'"cd"', 'echo export SERVICE_TOKEN=\'FAKEtk\'"99zz88yy77xx"', '99zz88yy77xx'],
  ['continuation between quotes "ab"\\⏎"cd"', 'echo export SERVICE_TOKEN="FAKEtk"\\\n"66zz55yy44xx"', '66zz55yy44xx'],
];

describe('a secret split by a seam written inside a command', () => {
  it.each(SPLIT_COMMANDS)('%s: gone from the tool call input and from the output bash printed', async (_name, command, tail) => {
    const output = bashOutput(command);
    const path = join(dir, `${tail}.jsonl`);
    const writer = await TranscriptWriter.open(path, { redact: rememberingRedact() });
    await writer.append({ type: 'tool_call', turn: 1, id: 't1', name: 'bash', input: { command } });
    await writer.append({ type: 'tool_result', turn: 1, id: 't1', name: 'bash', output, isError: false, exitCode: 0 });
    await writer.close();
    const stored = readFileSync(path, 'utf8');
    expect(stored).not.toContain(tail);
    expect(stored).toMatch(/\[REDACTED:[a-z_]+\]/);
  });

  it('joins in a serialized JSON line of a tool call (the escapes escaped once more)', () => {
    // Not the `NAME="…"` case: a double-quoted value inside a JSON string (`NAME=\"…\"`) is not read as an
    // assignment even unsplit (a gap of its own, outside the seams).
    for (const [, command, tail] of SPLIT_COMMANDS.filter(([, c]) => !c.includes('="'))) {
      const line = JSON.stringify({ type: 'tool_call', input: { command } });
      const out = redact(line);
      expect(out, command).not.toContain(tail);
      expect(redact(out)).toBe(out);
    }
  });

  it('joins an editor call that writes code with a concatenated secret', () => {
    const input = { command: 'create', path: 'src/config.ts', file_text: 'export const key =\n  "ghp_FAKEab12CD34" +\n  "ef56GH78ij90KL12mn34OP";\n' };
    const out = redact(input.file_text);
    expect(out).not.toContain('ef56GH78ij90KL12mn34OP');
    expect(out).toContain('[REDACTED:github_token]');
  });

  it('leaves seams that hold no secret exactly as written', () => {
    for (const text of [
      "printf 'all: build \\\\\\n  test\\n' > Makefile",
      "SELECT 'It''s' AS phrase",
      'const greeting = "Hello, " + "world";',
      "echo 'Total: '\"$N\"' items'",
      'echo -e "first line\\nsecond line"',
      'path = "C:\\\\new\\\\notes"',
      // A sentence ending in a quote and a full stop, the next line starting with one: prose, not `"ab" . "cd"`.
      'She wrote "build the docs".\n"Then ship it" was the reply.',
      'the vault passphrase is "correct horse battery staple".\n"and more"'.replace('correct horse battery staple', 'stored in the vault'),
    ]) {
      expect(redact(text), text).toBe(text);
    }
  });
});

// Round 22: joinToLength joins parts only when they make a token whole (its fixed length, or the high-entropy rest
// of a key whole by its shape); the line after a whole token that is no such rest stays as it was.
describe('a token whole before its line ends', () => {
  it('keeps the lines after it that are not its rest', () => {
    const ghp = 'ghp_AbCdEfGhIjKlMnOpQrStUvWxYz01234567';
    const ant = 'sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWx';
    const text = `${ghp}\n\nNext steps follow\n\n${ant}\nsha256:AbCdEf0123456789aBcDeF\nREADME.md\n${ant}\nFixed the flaky test\n`;
    expect(redact(text)).toBe(text.replace(ghp, '[REDACTED:github_token]').replaceAll(ant, '[REDACTED:anthropic_key]'));
  });

  it('does not join parts that would make a fixed-length token longer than it is', () => {
    const text = 'ghp_AbCdEfGhIjKlMnOpQrSt\nUvWxYz0123456789abcdefghij\n';
    // 24 + 26 characters: no fixed-length join; the older rule joins one part to a head still short of a token.
    expect(redact(text)).not.toContain('UvWxYz0123456789abcdefghij');
    expect(redact('see ghp_AbCdEfGhIjKlMnOpQrStUvWxYz01234567\n\nabcdef ok')).toBe('see [REDACTED:github_token]\n\nabcdef ok');
  });
});

