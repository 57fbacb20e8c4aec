/**
 * Issue 12, kind 9 (model path): a transcript longer than the model's window is extracted in parts and the parts'
 * lessons merged; nothing in the middle is cut. The scripted endpoint enforces a context window with its own token
 * rule (more tokens than mnemara's estimate, like a real tokenizer), answers count_tokens or not, and streams or not.
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { createModelClient } from '../../src/agent/client.js';
import { parseRawMemories } from '../../src/memory/artifacts.js';
import { runMemoryPipeline } from '../../src/memory/pipeline.js';
import { countTokensUnsupported } from '../../src/memory/token-count.js';
import { countTokensRule, startMessagesServer, toolUse, turn, type RecordedRequest } from '../support/messages-server.js';
import { CONFIG, tempWorkspace } from './helpers.js';
import { transcript } from './transcripts.js';

const WINDOW = 6_000;
const STEPS = 140;
const MIDDLE = 70;

/** A long Go-service run: 140 ordinary steps, and in the middle the one thing worth learning. */
function longRun(id: string): string {
  const steps: Parameters<typeof transcript>[1] = [];
  for (let i = 0; i < STEPS; i += 1) {
    if (i === MIDDLE) {
      steps.push({ cmd: 'make proto', output: 'protoc --go_out=. api/v1/*.proto\nprotoc-gen-go: program not found or is not executable\nmake: *** [Makefile:12: proto] Error 1', exit: 2 });
      steps.push({ cmd: 'go install google.golang.org/protobuf/cmd/protoc-gen-go@v1.34.2 && make proto', output: 'protoc --go_out=. api/v1/*.proto', exit: 0 });
    }
    steps.push({ cmd: `go test ./internal/pkg${i}/...`, output: `ok  \tgithub.com/acme/ledger/internal/pkg${i}\t0.${i}s\n${'=== RUN   TestLedgerEntry\n--- PASS: TestLedgerEntry (0.00s)\n'.repeat(12)}`, exit: 0 });
  }
  return transcript(id, steps, 'Regenerate the protobuf code and run the whole test suite');
}

const userText = (req: RecordedRequest): string => String(req.body.messages?.[0]?.content ?? '');
const lineOf = (content: string, re: RegExp): number | undefined => {
  const m = content.match(re);
  return m ? Number(m[1]) : undefined;
};

/** The "model": a pitfall when its part shows the protoc failure; in every part the same fact, citing that part's first line. */
function answer(req: RecordedRequest) {
  const content = userText(req);
  const first = lineOf(content, /^L(\d+) /m) ?? 1;
  const memories: unknown[] = [{ kind: 'fact', text: 'The service is tested package by package with `go test ./internal/...`.', evidence: { lines: [first] }, importance: 2, keywords: ['go test'] }];
  const failed = lineOf(content, /^L(\d+) \$ make proto/m);
  if (failed !== undefined) {
    memories.push({
      kind: 'pitfall',
      text: '`make proto` fails with "protoc-gen-go: program not found" until `go install google.golang.org/protobuf/cmd/protoc-gen-go@v1.34.2` has run.',
      evidence: { lines: [failed] },
      importance: 4,
      keywords: ['protoc-gen-go'],
    });
  }
  return turn(toolUse('record_rollout', { summary: { task: 'regenerate protobuf code', tried: [`part from L${first}`], worked: [], outcome: 'completed', filesChanged: [] }, memories }));
}

/** `configured`: the window mnemara is told (memory.contextTokens); the endpoint's own is WINDOW. */
async function run(opts: { countTokens: 'rule' | 'unsupported'; stream: boolean; configured?: number }) {
  const server = await startMessagesServer((req) => (req.body.tool_choice?.name === 'record_rollout' ? answer(req) : turn(toolUse('write_memory', { entries: [] }))), { contextTokens: WINDOW, countTokens: opts.countTokens });
  const paths = await tempWorkspace();
  await mkdir(paths.sessionsDir, { recursive: true });
  await writeFile(paths.transcript('r-long'), longRun('r-long'));
  const client = createModelClient({ baseURL: server.url, apiKey: 'test', maxRetries: 0, env: {} });
  const result = await runMemoryPipeline({ workspaceDir: paths.workspaceDir, extractor: 'model', client, model: 'claude-test', contextTokens: opts.configured ?? WINDOW, stream: opts.stream, config: CONFIG });
  const raw = await readFile(paths.rawMemories('r-long'), 'utf8');
  const calls = server.messageRequests.filter((r) => r.body.tool_choice?.name === 'record_rollout');
  return { server, paths, result, raw, calls, cleanup: async () => { await server.close(); await rm(paths.workspaceDir, { recursive: true, force: true }); } };
}

describe('issue 12, kind 9: a transcript over the window is extracted in parts and merged', () => {
  for (const stream of [false, true]) {
    it(`${stream ? 'streaming' : 'JSON'}: counted by the endpoint, every part fits, the lesson in the middle is kept`, async () => {
      const r = await run({ countTokens: 'rule', stream });
      try {
        expect(r.result.pending).toEqual([]);
        expect(r.calls.length).toBeGreaterThanOrEqual(3);
        for (const c of r.calls) {
          expect(countTokensRule(c.body)).toBeLessThanOrEqual(WINDOW);
          expect(c.body.stream === true).toBe(stream);
        }
        // Nothing cut: every step of the run reached the model in some part, and no part says it was cut.
        const seen = r.calls.map(userText).join('\n');
        for (let i = 0; i < STEPS; i += 1) expect(seen).toContain(`$ go test ./internal/pkg${i}/...`);
        expect(seen).not.toMatch(/cut here/);
        expect(r.server.requests.filter((q) => q.path.startsWith('/v1/messages/count_tokens')).length).toBeGreaterThanOrEqual(r.calls.length);
        // The middle's lesson, once; the fact every part repeated, once, citing lines of several parts.
        const { memories } = parseRawMemories(r.raw, 'raw');
        expect(memories.filter((m) => /protoc-gen-go@v1\.34\.2/.test(m.text))).toHaveLength(1);
        const fact = memories.filter((m) => /tested package by package/.test(m.text));
        expect(fact).toHaveLength(1);
        expect(fact[0]!.evidence.lines.length).toBe(r.calls.length);
      } finally {
        await r.cleanup();
      }
    }, 60_000);
  }

  it('without count_tokens: estimates, and splits a part the endpoint refuses instead of sending it again', async () => {
    // The window is configured too large for this endpoint, and the estimate (chars / 4) undercounts its tokens.
    const r = await run({ countTokens: 'unsupported', stream: true, configured: 2 * WINDOW });
    try {
      expect(r.result.pending).toEqual([]);
      expect(countTokensUnsupported(r.server.url)).toBe(true);
      // Asked once, 404, remembered: no further count_tokens requests to this endpoint.
      expect(r.server.requests.filter((q) => q.path.startsWith('/v1/messages/count_tokens'))).toHaveLength(1);
      const bodies = r.calls.map((c) => JSON.stringify(c.body.messages));
      expect(new Set(bodies).size).toBe(bodies.length);
      const refused = r.calls.filter((c) => countTokensRule(c.body) > WINDOW);
      expect(refused.length).toBeGreaterThan(0); // refused as too large …
      expect(parseRawMemories(r.raw, 'raw').memories.filter((m) => /protoc-gen-go@v1\.34\.2/.test(m.text))).toHaveLength(1); // … and still nothing is lost
      const seen = r.calls.filter((c) => countTokensRule(c.body) <= WINDOW).map(userText).join('\n');
      for (let i = 0; i < STEPS; i += 1) expect(seen).toContain(`$ go test ./internal/pkg${i}/...`);
    } finally {
      await r.cleanup();
    }
  }, 60_000);
});
