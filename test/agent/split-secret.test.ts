/**
 * Trial 26 N15: a token the agent prints in two pieces (`printf 'ghp_'; printf '<36 chars>'`) was redacted in the
 * tool's output (joined there) but kept its body in the stored command: the transcript and the terminal line.
 * The pieces of a secret the output showed are redacted from the command too.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createModelClient, runAgent, type AgentEvent } from '../../src/agent/index.js';
import { redact } from '../../src/memory/redact.js';
import { rememberingRedact } from '../../src/memory/redact-parts.js';
import { redactSecretPieces, replacedSecrets } from '../../src/memory/redact-split-secrets.js';
import { LocalSandbox } from '../../src/sandbox/index.js';
import { startMessagesServer, text, toolUse, turn, type MessagesServer } from '../support/messages-server.js';

const BODY = 'T26aB3cD4eF5gH6iJ7kL8mN9oP0qR1sT2uVw';
const SPLIT = `printf 'token: ghp_'; sleep 0.1; printf '${BODY}\\n'`;

let sandbox: LocalSandbox;
let hostDir: string;
let server: MessagesServer | undefined;
beforeAll(async () => {
  sandbox = await LocalSandbox.create({ sessionId: 'split-secret', timeoutMs: 10_000 });
  hostDir = await mkdtemp(join(tmpdir(), 'mnemara-split-secret-'));
});
afterAll(async () => {
  await sandbox.close();
  await rm(hostDir, { recursive: true, force: true });
});
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('a secret printed in pieces', () => {
  it('finds the value the output showed and redacts its pieces in another text', () => {
    const output = `token: ghp_${BODY}\n`;
    const secrets = replacedSecrets(output, redact(output));
    expect(secrets).toEqual([{ value: `ghp_${BODY}`, kind: 'github_token' }]);
    expect(redactSecretPieces(SPLIT, secrets)).toBe("printf 'token: ghp_'; sleep 0.1; printf '[REDACTED:github_token]\\n'");
    // A short piece (under 12 characters) or an unrelated text is left as it is.
    expect(redactSecretPieces(`echo ${BODY.slice(0, 11)}`, secrets)).toBe(`echo ${BODY.slice(0, 11)}`);
    expect(redactSecretPieces('npm test', secrets)).toBe('npm test');
    expect(replacedSecrets('plain', 'plain')).toEqual([]);
  });

  it('keeps no piece of it in the stored command nor on the terminal line', async () => {
    server = await startMessagesServer([turn(toolUse('bash', { command: SPLIT })), turn(text('Done.'))]);
    const events: AgentEvent[] = [];
    const transcriptPath = join(hostDir, 'split.jsonl');
    const result = await runAgent({
      sandbox,
      client: createModelClient({ baseURL: server.url, maxRetries: 0, env: {} }),
      instructions: 'You are a careful engineer.',
      task: 'Print the token.',
      maxTurns: 5,
      maxTokens: 1_000_000,
      liveUpdate: false,
      memoryLayout: { memoriesDir: 'memories', sessionsDir: 'sessions' },
      transcriptPath,
      redact: rememberingRedact(),
      onEvent: (e) => events.push(e),
    });
    expect(result.outcome).toBe('completed');
    const stored = await readFile(transcriptPath, 'utf8');
    expect(stored).not.toContain(BODY.slice(0, 12));
    const records = stored.trimEnd().split('\n').map((l) => JSON.parse(l) as { type: string; input?: { command?: string }; output?: string });
    // One record per call, in order: the rewrite replaced the call, it did not add another.
    expect(records.map((r) => r.type)).toEqual(['session_meta', 'message', 'tool_call', 'tool_result', 'message', 'session_end']);
    expect(records.find((r) => r.type === 'tool_call')?.input?.command).toContain('[REDACTED:github_token]');
    expect(records.find((r) => r.type === 'tool_result')?.output).toContain('token: [REDACTED:github_token]');
    const ended = events.find((e) => e.type === 'tool_call_ended') as { summary: string } | undefined;
    expect(ended?.summary).not.toContain(BODY.slice(0, 12));
  });
});
