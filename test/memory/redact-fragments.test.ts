import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { redact } from '../../src/memory/redact.js';
import { rememberingRedact } from '../../src/memory/redact-parts.js';
import { fragmentKind } from '../../src/memory/redact-fragments.js';
import { TranscriptWriter } from '../../src/transcript/writer.js';

/**
 * Issue 10, item 8 (fourth new-user trial): tokens that survived in tool call inputs because the command wrote
 * them in a form no token shape reads: shell escapes inside a word or string, and a known-prefix token cut into
 * parts the shell joins later. Each command is run by bash here too, to show it really prints the token.
 */
const dir = mkdtempSync(join(tmpdir(), 'mnemara-fragments-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TOKEN = 'ghp_FAKE0a1B2c3D4e5F6g7H8i9J0kLmNoPqRsTu';
const bash = (command: string): string => execFileSync('bash', ['-c', command], { cwd: dir, encoding: 'utf8' });

// Each: the command as typed, the parts that must be gone, and what bash prints (or writes to tok.txt) from it.
const ESCAPED: Array<[string, string, string[]]> = [
  ['printf hex escape', "printf '\\x67hp_FAKE0a1B2c3D4e5F6g7H8i9J0kLmNoPqRsTu'", ['hp_FAKE0a1B2c3D4e5F6g7H8i9J0kLmNoPqRsTu']],
  ["$'…' hex escapes", "echo $'\\x67\\x68p_FAKE0a1B2c3D4e5F6g7H8i9J0kLmNoPqRsTu'", ['p_FAKE0a1B2c3D4e5F6g7H8i9J0kLmNoPqRsTu']],
  ["$'…' octal escapes", "echo $'\\147\\150p_FAKE0a1B2c3D4e5F6g7H8i9J0kLmNoPqRsTu'", ['p_FAKE0a1B2c3D4e5F6g7H8i9J0kLmNoPqRsTu']],
  ['echo -e octal with a leading 0', "echo -e '\\0147hp_FAKE0a1B2c3D4e5F6g7H8i9J0kLmNoPqRsTu'", ['hp_FAKE0a1B2c3D4e5F6g7H8i9J0kLmNoPqRsTu']],
  ["$'…' \\u escape", "echo $'\\u0067hp_FAKE0a1B2c3D4e5F6g7H8i9J0kLmNoPqRsTu'", ['hp_FAKE0a1B2c3D4e5F6g7H8i9J0kLmNoPqRsTu']],
  ['backslash removed from a bare word', 'echo ghp_FAKE0a1B2c3D4e5F\\6g7H8i9J0kLmNoPqRsTu', ['ghp_FAKE0a1B2c3D4e5F', '6g7H8i9J0kLmNoPqRsTu']],
  ['backslash inside a short head', 'echo ghp_FAKE0a1B2\\c3D4e5F6g7H8i9J0kLmNoPqRsTu', ['ghp_FAKE0a1B2', 'c3D4e5F6g7H8i9J0kLmNoPqRsTu']],
];
const SPLIT: Array<[string, string, string[]]> = [
  ['two variables expanded together', 'A=ghp_FAKE0a1B2c3D4e5; B=F6g7H8i9J0kLmNoPqRsTu; echo $A$B', ['ghp_FAKE0a1B2c3D4e5', 'F6g7H8i9J0kLmNoPqRsTu']],
  ['braced variables', 'X1=ghp_FAKE0a1B2c3D4e5 X2=F6g7H8i9J0kLmNoPqRsTu bash -c \'echo ${X1}${X2}\'', ['ghp_FAKE0a1B2c3D4e5', 'F6g7H8i9J0kLmNoPqRsTu']],
  ['printf arguments', "printf '%s%s\\n' ghp_FAKEmXR 0a1B2c3D4e5F6g7H8i9J0kLmNoPqRsTu", ['ghp_FAKEmXR', '0a1B2c3D4e5F6g7H8i9J0kLmNoPqRsTu']],
  ['appended to the same file', "printf '%s' 'ghp_FAKE0a1B2c' > tok.txt; printf '%s\\n' '3D4e5F6g7H8i9J0kLmNoPqRsTu' >> tok.txt; cat tok.txt", ['ghp_FAKE0a1B2c', '3D4e5F6g7H8i9J0kLmNoPqRsTu']],
  ['aws key id in two assignments', 'K1=AKIAFAKE; K2=KMY6F2DGGCQP; echo $K1$K2', ['AKIAFAKE', 'KMY6F2DGGCQP']],
];

describe('secrets hidden by shell escapes and splits in a command', () => {
  it.each([...ESCAPED, ...SPLIT])('%s: bash prints the token; input and output are redacted', async (_name, command, parts) => {
    const output = bash(command);
    expect(output.replace(/\s/g, '')).toMatch(/ghp_FAKE0a1B2c3D4e5F6g7H8i9J0kLmNoPqRsTu|ghp_FAKEmXR0a1B|AKIAFAKEKMY6F2DGGCQP/);
    const out = redact(command);
    for (const part of parts) expect(out, out).not.toContain(part);
    expect(out).toMatch(/\[REDACTED:(?:github_token|aws_access_key_id)\]/);
    expect(redact(out)).toBe(out);
    // In a stored transcript too, input and output, and in its serialized JSON line.
    const path = join(dir, `${parts[0]!.slice(-8)}.jsonl`);
    const writer = await TranscriptWriter.open(path, { redact: rememberingRedact() });
    await writer.append({ type: 'tool_call', turn: 1, id: 't1', name: 'bash', input: { command } });
    await writer.append({ type: 'tool_result', turn: 1, id: 't1', name: 'bash', output, isError: false, exitCode: 0 });
    await writer.close();
    const stored = readFileSync(path, 'utf8');
    for (const part of parts) expect(stored).not.toContain(part);
    const line = redact(JSON.stringify({ type: 'tool_call', input: { command } }));
    for (const part of parts) expect(line, line).not.toContain(part);
  });

  // Eleventh trial (medium): the token's head written by one tool call, its rest appended by the next; the stored
  // transcript kept the rest in the second command.
  it('a rest appended to the fragment\'s file by a later tool call goes too, in the stored transcript', async () => {
    const [head, rest] = ['ghp_FAKEa1B2c3D4e5F6', 'g7H8FAKEi9J0kLmNoPqRs'];
    const path = join(dir, 'two-calls.jsonl');
    const writer = await TranscriptWriter.open(path, { redact: rememberingRedact() });
    await writer.append({ type: 'tool_call', turn: 1, id: 't1', name: 'bash', input: { command: `echo -n ${head} > /tmp/tok` } });
    await writer.append({ type: 'tool_result', turn: 1, id: 't1', name: 'bash', output: '', isError: false, exitCode: 0 });
    await writer.append({ type: 'tool_call', turn: 2, id: 't2', name: 'bash', input: { command: `echo -n ${rest} >> /tmp/tok && wc -c /tmp/tok` } });
    await writer.append({ type: 'tool_call', turn: 3, id: 't3', name: 'bash', input: { command: 'echo build_output_2024_final >> /tmp/other.log' } });
    await writer.close();
    const stored = readFileSync(path, 'utf8');
    expect(stored).not.toContain(head);
    expect(stored).not.toContain(rest);
    expect(stored).toContain('>> /tmp/tok && wc -c /tmp/tok');
    // Another file's appends are not a token's rest.
    expect(stored).toContain('build_output_2024_final');
  });

  it('redacts only the escaped span: the words around it stay', () => {
    expect(redact("printf 'line\\n\\x67hp_FAKE0a1B2c3D4e5F6g7H8i9J0kLmNoPqRsTu\\n' > t")).toBe("printf 'line\\n[REDACTED:github_token]\\n' > t");
    expect(redact(`echo ${TOKEN} done`)).toBe('echo [REDACTED:github_token] done');
  });

  it('takes a fragment of a known prefix alone, and only a random one', () => {
    expect(fragmentKind('ghp_FAc9QeWJKY40')).toBe('github_token');
    expect(fragmentKind('ghp_eKOmXR')).toBe('github_token');
    expect(fragmentKind('AKIATOPM')).toBe('aws_access_key_id');
    expect(fragmentKind('xoxb-12345-abcd9')).toBe('slack_token');
    expect(fragmentKind('sk_live_4eC39HqLy')).toBe('stripe_key');
    for (const w of ['ghp_', 'ghp_xxxxxxxx', 'ghp_XXXXXXXXXX', 'ghp_Token', 'ghp_abc', 'ghp_123456', 'npm_config_cache', 'hf_hub_download', 'hf_transfer', 'ASIAPACIFIC', 'AKIAIOSFODNN7EXAMPLE', 'sk_test_abcdef', 'ghp_YourTokenHere', 'hf_model2', 'hf_dataset_v2', 'npm_v10cache', 'ghp_Token2024']) {
      expect(fragmentKind(w), w).toBeNull();
    }
  });

  const LOOK_ALIKES = [
    'GitHub tokens start with ghp_ and look like ghp_xxxxxxxxxxxx; GitLab ones start with glpat-',
    'set GH_TOKEN to ghp_XXXXXXXXXXXXXXXXXXXX in your shell',
    'npm_config_cache=/tmp/npm npm_package_version=1.2.3 python -c "from huggingface_hub import hf_hub_download"',
    'pip install hf_transfer; ls ghp_token.txt AKIA_notes.md',
    'ASIAPACIFIC region report 2024 and ASIANET',
    'C:\\Users\\runner\\work\\app\\node_modules\\.bin and "line one\\nline two\\tcol3"',
    'printf "%s\\n" "\\x41\\x42\\x43" $\'\\u00e9t\\u00e9\' \\\\server\\share',
    'echo a\\ b\\ c; grep -E "^ghp_[A-Za-z0-9]{36}$" rules.txt',
    'A=hello; B=world; echo $A$B',
  ];
  it.each(LOOK_ALIKES)('leaves a look-alike alone: %s', (text) => {
    expect(redact(text)).toBe(text);
  });
});
