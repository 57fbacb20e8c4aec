/**
 * Portable tools (issue 11): an endpoint that is not Anthropic's gets the run's tools as plain JSON-schema tools
 * (same names, same inputs), chosen automatically by the endpoint or by `agent.tools`; and when such an endpoint
 * does not give the memory step's structured answer, the deterministic extractor writes the memory and says so.
 * The endpoint is the scripted Messages server in its `portable` mode, which refuses tools without input_schema
 * as llama.cpp's server effectively does; Docker and the CLI are real.
 */
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIX_BUG, policy } from '../../examples/two-runs/scripted-model.js';
import { bashDefinition } from '../../src/agent/tools/bash.js';
import { editorDefinition } from '../../src/agent/tools/editor.js';
import { portableBash, portableEditor, portableMemory, toolStyleFor } from '../../src/agent/tools/portable.js';
import type { SessionResult } from '../../src/session.js';
import { portableToolProblem, startMessagesServer, text, turn, type MessagesServer, type RecordedRequest } from '../support/messages-server.js';
import { scratch } from '../session/harness.js';

const BIN = fileURLToPath(new URL('../../bin/mnemara.js', import.meta.url));
let dirs: ReturnType<typeof scratch>;
const servers: MessagesServer[] = [];

function mnemara(args: string[], env: Record<string, string>) {
  return execa(process.execPath, [BIN, ...args], {
    env: { PATH: process.env.PATH ?? '', MNEMARA_HOME: dirs.home, ...env },
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
  });
}

beforeAll(() => {
  dirs = scratch();
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  dirs?.cleanup();
});

describe('tool style', () => {
  it('auto is anthropic for the Anthropic API and portable for any other endpoint; a setting wins', () => {
    expect(toolStyleFor('auto', undefined)).toBe('anthropic');
    expect(toolStyleFor('auto', 'https://api.anthropic.com')).toBe('anthropic');
    expect(toolStyleFor('auto', 'http://127.0.0.1:8080')).toBe('portable');
    expect(toolStyleFor('auto', 'https://gateway.example.com/anthropic')).toBe('portable');
    expect(toolStyleFor('auto', 'https://anthropic.com.evil.example')).toBe('portable');
    expect(toolStyleFor('anthropic', 'http://127.0.0.1:8080')).toBe('anthropic');
    expect(toolStyleFor('portable', undefined)).toBe('portable');
  });

  it('portable tools carry described JSON schemas with required arguments; typed tools do not pass a portable server', () => {
    expect(portableToolProblem([portableBash, portableEditor(1000), portableMemory])).toBeNull();
    expect(portableToolProblem([bashDefinition])).toMatch(/typed tool \(bash_20250124\)/);
    expect(portableToolProblem([editorDefinition(1000)])).toMatch(/text_editor_20250728/);
    expect(portableEditor(1000).input_schema.required).toEqual(['command', 'path']);
    expect(portableBash.input_schema.required).toEqual(['command']);
    for (const t of [portableBash, portableEditor(1000), portableMemory]) {
      for (const [name, p] of Object.entries(t.input_schema.properties as Record<string, { description?: string }>)) {
        expect(p.description, `${t.name}.${name}`).toBeTruthy();
      }
    }
  });
});

describe('a run against an endpoint that knows only JSON-schema tools', () => {
  it('completes with portable tools (auto), and the memory falls back to the deterministic extractor with a message', async () => {
    const agent = policy(FIX_BUG);
    // Not Claude: it answers the memory step's forced tool call with prose, as a model without tool use would.
    const script = (req: RecordedRequest) =>
      (req.body as { tool_choice?: { type?: string } }).tool_choice?.type === 'tool' ? turn(text('Here is a summary of the run: the bug was fixed.')) : agent(req);
    const server = await startMessagesServer(script, { tools: 'portable' });
    servers.push(server);
    const r = await mnemara(['run', '-w', dirs.workspace, '--task', FIX_BUG.task, '--json'], { ANTHROPIC_BASE_URL: server.url });
    expect(r.exitCode, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout) as SessionResult;
    expect(result.outcome).toBe('completed');
    expect(result.pending).toBe(false);
    expect(result.lessons?.total).toBeGreaterThan(0);
    const agentCalls = server.messageRequests.filter((q) => (q.body as { tool_choice?: unknown }).tool_choice === undefined);
    const names = (agentCalls[0]?.body.tools as Array<{ name: string; input_schema?: unknown }>).map((t) => t.name);
    expect(names).toEqual(['bash', 'str_replace_based_edit_tool', 'memory']);
    expect(agentCalls.every((q) => portableToolProblem(q.body.tools) === null)).toBe(true);
    // The memory step asked the model, got prose twice, and said it used the deterministic extractor.
    expect(server.messageRequests.some((q) => (q.body as { tool_choice?: { name?: string } }).tool_choice?.name === 'record_rollout')).toBe(true);

    const human = await mnemara(['run', '-w', dirs.workspace, '--task', FIX_BUG.task, '--lineage', 'again'], { ANTHROPIC_BASE_URL: server.url });
    expect(human.exitCode, human.stderr).toBe(0);
    expect(human.stderr).toContain('memory-fallback: the model endpoint did not give the structured answer');
    expect(human.stderr).toContain('the deterministic extractor wrote this memory instead');
    // One line, not a failure (twelfth trial F20: four warnings, "stays pending" and a ✗ around a memory that was fine).
    expect(human.stderr).not.toMatch(/model output rejected|stays pending|phase [12] failed|✗ memory-fallback|no structured answer/);
  }, 400_000);

  it("agent.tools=anthropic sends the typed tools, which such a server refuses (so the check above can fail)", async () => {
    const server = await startMessagesServer(policy(FIX_BUG), { tools: 'portable' });
    servers.push(server);
    const r = await mnemara(['run', '-w', dirs.workspace, '--task', FIX_BUG.task, '--lineage', 'typed', '--tools', 'anthropic', '--json', '--no-memory-generate'], {
      ANTHROPIC_BASE_URL: server.url,
    });
    expect(r.exitCode).toBe(1);
    const result = JSON.parse(r.stdout) as SessionResult;
    expect(result.outcome).toBe('error');
    expect(result.agentError).toMatch(/typed tool \(bash_20250124\)/);
  }, 300_000);
});
