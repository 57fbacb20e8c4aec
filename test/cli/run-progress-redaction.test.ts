/**
 * Issue 10, item 8 (third new-user trial): the live `[turn N]` line `mnemara run` prints on stderr showed a token
 * split by a backslash-newline unredacted, while the stored copy was redacted: the one-line summary was cut and
 * flattened first (`ghp_ab\` ⏎ `cd…` became `ghp_ab\ cd…`, which no rule joins) and redacted after. Every line
 * mnemara prints about a tool call must be the redacted one. A real `mnemara run` process, real Docker, the
 * scripted Messages server as the model.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMessagesServer, text, toolUse, turn, type MessagesServer } from '../support/messages-server.js';
import { scratch } from '../session/harness.js';

const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
let dirs: ReturnType<typeof scratch>;
let server: MessagesServer;

// The parts after each split: none may appear in anything mnemara prints or stores.
const TAILS = ['CD34ef56GH78ij90KL12mn34OP', 'EF56gh78IJ90kl12MN34op56QR', 'Qq81zz93kk47'];

beforeAll(async () => {
  dirs = scratch('progress-redaction');
  server = await startMessagesServer([
    // A real backslash-newline inside the command, a printf escape of one, and adjacent quoted strings.
    turn(toolUse('bash', { command: `echo ghp_FAKEab12\\\n${TAILS[0]} > /dev/null` })),
    turn(toolUse('bash', { command: `printf 'TOK=ghp_FAKEcd34\\\\\\n${TAILS[1]}' > /dev/null` })),
    turn(toolUse('bash', { command: `export API_TOKEN='FAKEzz''${TAILS[2]}'; true` })),
    turn(text('Done.')),
  ]);
});
afterAll(async () => {
  await server?.close();
  dirs?.cleanup();
});

describe('mnemara run: the live tool-call lines are redacted like the stored copy', () => {
  it('prints each split token redacted on stderr, and stores none of it', async () => {
    const run = await execa(process.execPath, ['--import', 'tsx', MAIN, 'run', '-w', dirs.workspace, '--task', 'Set the token up.'], {
      env: { MNEMARA_HOME: dirs.home, MNEMARA_MEMORY_EXTRACTOR: 'deterministic', ANTHROPIC_BASE_URL: server.url },
      extendEnv: false,
      reject: false,
      stdin: 'ignore',
    });
    expect(run.exitCode, run.stderr).toBe(0);
    const lines = run.stderr.split('\n').filter((l) => /\[turn \d+\] bash:/.test(l));
    expect(lines).toHaveLength(3);
    for (const line of lines) expect(line).toMatch(/\[REDACTED:[a-z_]+\]/);
    for (const tail of TAILS) {
      expect(run.stderr, tail).not.toContain(tail);
      expect(run.stdout, tail).not.toContain(tail);
    }
    // The stored transcript agrees.
    const transcripts = join(dirs.home, 'transcripts');
    const stored = readdirSync(transcripts, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && e.name.endsWith('.jsonl'))
      .map((e) => readFileSync(join(e.parentPath, e.name), 'utf8'))
      .join('\n');
    expect(stored).toContain('"type":"tool_call"');
    for (const tail of TAILS) expect(stored, tail).not.toContain(tail);
  }, 180_000);
});
