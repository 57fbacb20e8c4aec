/**
 * Issue 10, item 8: every kind of the secrets corpus through a whole session (real Docker sandbox, the scripted
 * Messages server as the model, the deterministic pipeline, and again with the model pipeline whose scripted
 * replies put every secret back into the summary, the raw memories and MEMORY.md), then a search of everything mnemara stored at rest:
 * every file under MNEMARA_HOME (transcripts, manifests, refs, scratch) and every snapshot blob, decompressed,
 * every layer (workspace and memory). The table of survivals must be empty.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSession, type SessionResult } from '../../src/session.js';
import { startMessagesServer, text, toolUse, turn, type MessagesServer, type RecordedRequest } from '../support/messages-server.js';
import { SECRET_CORPUS } from '../memory/secret-corpus.js';
import { scratch, testConfig } from './harness.js';

const corpusText = SECRET_CORPUS.map((c) => c.text).join('\n');

/** Every file under `dir`, with its content as text; gzip blobs decompressed. */
function storedTexts(dir: string): Array<{ where: string; text: string }> {
  const out: Array<{ where: string; text: string }> = [];
  const walk = (d: string): void => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      const st = statSync(path, { throwIfNoEntry: false });
      if (!st) continue;
      if (st.isDirectory()) walk(path);
      else if (st.isFile()) {
        let data = readFileSync(path);
        if (data[0] === 0x1f && data[1] === 0x8b) data = gunzipSync(data);
        out.push({ where: relative(dir, path), text: data.toString('utf8') + data.toString('latin1') });
      }
    }
  };
  walk(dir);
  return out;
}

/** The per-kind table of the closing note: where each kind survived, or "survived nowhere". */
function report(path: string, survivals: Record<string, string[]>): void {
  const rows = SECRET_CORPUS.map((c) => `  ${c.name.padEnd(44)} ${survivals[c.name] ? `SURVIVED in ${survivals[c.name]!.join(', ')}` : 'survived nowhere'}`);
  const lost = Object.keys(survivals).length;
  console.log(`secrets corpus, ${path}: tried ${SECRET_CORPUS.length}, survived ${lost}\n${rows.join('\n')}`);
}

let dirs: ReturnType<typeof scratch>;
let server: MessagesServer;
let run: SessionResult;
let modelDirs: ReturnType<typeof scratch>;
let modelServer: MessagesServer;
let modelRun: SessionResult;

/** The corpus in pieces the memory schemas accept (≤ 1,200 characters each), cut between entries. */
const pieces: string[] = [''];
for (const c of SECRET_CORPUS) {
  if (pieces.at(-1)!.length + c.text.length > 1_000) pieces.push('');
  pieces[pieces.length - 1] += `${c.text}\n`;
}

/** A model that writes every secret back into what it returns, whatever it was sent. */
function leakyModel(agentTurns: ReturnType<typeof turn>[]): (req: RecordedRequest) => ReturnType<typeof turn> {
  let next = 0;
  return (req) => {
    const body = req.body as { tool_choice?: { name?: string } };
    const rollout = /\d{8}T\d{9}Z-[0-9a-f]{10}/.exec(JSON.stringify(req.body))?.[0] ?? 'unknown';
    if (body.tool_choice?.name === 'record_rollout') {
      return turn(toolUse('record_rollout', {
        summary: { task: pieces[0]!, tried: pieces, worked: pieces.slice(0, 2), outcome: 'completed', filesChanged: [] },
        memories: pieces.map((p) => ({ kind: 'fact', text: p, evidence: { lines: [1], quote: p.slice(0, 300) }, importance: 3, keywords: [] })),
      }));
    }
    if (body.tool_choice?.name === 'write_memory') {
      return turn(toolUse('write_memory', { entries: pieces.map((p) => ({ kind: 'fact', text: p, sources: [rollout], importance: 3 })) }));
    }
    return agentTurns[next++] ?? turn(text('Done.'));
  };
}

beforeAll(async () => {
  dirs = scratch('secret-survival');
  server = await startMessagesServer([
    // The commands and their output carry every secret; the agent keeps them in a note and says one.
    turn(toolUse('bash', { command: `cat <<'MNEMARA_EOF'\n${corpusText}\nMNEMARA_EOF` })),
    turn(toolUse('bash', { command: `mkdir -p memories/deploy && cat > memories/deploy/notes.md <<'MNEMARA_EOF'\n# How to deploy\n${corpusText}\nMNEMARA_EOF\nprintf 'x\\0y ${SECRET_CORPUS[0]!.secret}' > memories/blob.bin` })),
    turn(text(`Done. I logged in with ${SECRET_CORPUS[1]!.secret}; das Passwort ist FAKEgeheim42.`)),
  ]);
  const config = testConfig(dirs.home, server.url);
  run = await runSession({ workspace: dirs.workspace, task: `Deploy it. ${SECRET_CORPUS[2]!.text}`, config, lineage: 'secrets' });

  modelDirs = scratch('secret-survival-model');
  modelServer = await startMessagesServer(
    leakyModel([
      turn(toolUse('bash', { command: `cat <<'MNEMARA_EOF'\n${corpusText}\nMNEMARA_EOF` })),
      turn(text(`Done with ${SECRET_CORPUS[1]!.secret}.`)),
    ]),
  );
  const modelConfig = testConfig(modelDirs.home, modelServer.url, { MNEMARA_MEMORY_EXTRACTOR: 'model', ANTHROPIC_API_KEY: 'sk-ant-api03-test-only-not-a-secret-0000000000' });
  modelRun = await runSession({ workspace: modelDirs.workspace, task: 'Deploy it.', config: modelConfig, lineage: 'secrets-model' });
}, 300_000);
afterAll(async () => {
  await server?.close();
  await modelServer?.close();
  dirs?.cleanup();
  modelDirs?.cleanup();
});

describe('the secrets corpus through a whole session', () => {
  it('ran to the end, snapshot and pipeline included', () => {
    expect(run.outcome).toBe('completed');
    expect(run.pipelineError).toBeUndefined();
    expect(run.memorySnapshot).toBeTruthy();
  });

  it('leaves no kind anywhere at rest: transcripts, sessions/, summaries, memory files, every snapshot layer', () => {
    const stored = storedTexts(dirs.home);
    // The search must see the layers: the workspace layer holds the repository's own files.
    expect(stored.some((s) => s.where.startsWith(join('store', 'blobs')) && s.text.includes('deploy/notes.md'))).toBe(true);
    const survivals: Record<string, string[]> = {};
    for (const c of SECRET_CORPUS) {
      const where = stored.filter((s) => s.text.includes(c.secret)).map((s) => s.where);
      if (where.length) survivals[c.name] = where;
    }
    const leftFake = stored.filter((s) => /FAKEgeheim42/.test(s.text)).map((s) => s.where);
    report('deterministic path', survivals);
    expect({ survivals, leftFake, tried: SECRET_CORPUS.length }).toEqual({ survivals: {}, leftFake: [], tried: SECRET_CORPUS.length });
  });
});

describe('the secrets corpus through a session with the model pipeline', () => {
  it('ran phase 1 and phase 2 with the model', () => {
    expect(modelRun.outcome).toBe('completed');
    expect(modelRun.pipelineError).toBeUndefined();
    const tools = modelServer.messageRequests.map((r) => (r.body as { tool_choice?: { name?: string } }).tool_choice?.name).filter(Boolean);
    expect(tools).toEqual(expect.arrayContaining(['record_rollout', 'write_memory']));
  });

  it('sends no secret to the pipeline model calls and stores none of what the model sent back', () => {
    const pipelineRequests = modelServer.messageRequests.filter((r) => (r.body as { tool_choice?: unknown }).tool_choice);
    const survivals: Record<string, string[]> = {};
    const stored = storedTexts(modelDirs.home);
    for (const c of SECRET_CORPUS) {
      const where = [
        ...pipelineRequests.filter((r) => JSON.stringify(r.body).includes(JSON.stringify(c.secret).slice(1, -1))).map(() => 'model request'),
        ...stored.filter((s) => s.text.includes(c.secret)).map((s) => s.where),
      ];
      if (where.length) survivals[c.name] = where;
    }
    report('model path (scripted model)', survivals);
    expect({ survivals, tried: SECRET_CORPUS.length }).toEqual({ survivals: {}, tried: SECRET_CORPUS.length });
  });
});
