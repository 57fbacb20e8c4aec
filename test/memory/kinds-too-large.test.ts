import { readFile, rm } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { createModelClient } from '../../src/agent/client.js';
import { learnTranscript } from '../../src/memory/learn.js';
import { loadState } from '../../src/memory/state.js';
import { runMemoryPipeline } from '../../src/memory/pipeline.js';
import { error, startMessagesServer, toolUse, turn } from '../support/messages-server.js';
import { defaultFixtures } from '../../scripts/eval-memory/labels.js';
import { CONFIG, tempWorkspace } from './helpers.js';

const RECORD = turn(toolUse('record_rollout', { summary: { task: 't', tried: [], worked: [], outcome: 'completed', filesChanged: [] }, memories: [] }));
const WRITE = turn(toolUse('write_memory', { entries: [] }));

describe('issue 12, kind 9: a request refused as too large is never retried identically', () => {
  it('shrinks the transcript and succeeds when the smaller request fits', async () => {
    const sizes: number[] = [];
    const contents: string[] = [];
    const server = await startMessagesServer((req) => {
      if (req.body.tool_choice?.name !== 'record_rollout') return WRITE;
      const size = JSON.stringify(req.body).length;
      sizes.push(size);
      contents.push(String(req.body.messages[0].content));
      return sizes.length === 1 ? error(400, { message: 'prompt is too long: 28400 tokens > 20000 maximum' }) : RECORD;
    });
    const paths = await tempWorkspace();
    try {
      const client = createModelClient({ baseURL: server.url, apiKey: 'test', maxRetries: 0, env: {} });
      const r = await learnTranscript(`${defaultFixtures()}/ferrule-gateway-customer-note.json`, paths.workspaceDir, { extractor: 'model', client, model: 'claude-test', contextTokens: 8_000, config: { ...CONFIG, layout: { memoriesDir: 'memories', sessionsDir: 'sessions' } } as never });
      expect(r.pending).toEqual([]);
      // The refused part is split in two, each half sent once (smaller, and each of its lines in one half):
      // never the refused request again.
      const refused = contents[0]!.match(/^L(\d+) /gm)!.map((l) => l.trim());
      const halves = contents.slice(1).map((c, i) => ({ c, size: sizes[i + 1]! })).filter((h) => refused.some((l) => h.c.includes(`\n${l} `)));
      expect(halves).toHaveLength(2);
      for (const h of halves) expect(h.size).toBeLessThan(sizes[0]!);
      for (const l of refused) expect(halves.filter((h) => h.c.includes(`\n${l} `))).toHaveLength(1);
      expect(new Set(contents).size).toBe(contents.length);
    } finally {
      await server.close();
      await rm(paths.workspaceDir, { recursive: true, force: true });
    }
  });

  it('marks the rollout failed with the reason and the command to retry, and later runs at the same window send nothing', async () => {
    const server = await startMessagesServer((req) => (req.body.tool_choice?.name === 'record_rollout' ? error(400, { message: 'prompt is too long: 28400 tokens > 20000 maximum' }) : WRITE));
    const paths = await tempWorkspace();
    try {
      const client = createModelClient({ baseURL: server.url, apiKey: 'test', maxRetries: 0, env: {} });
      const opts = { extractor: 'model' as const, client, model: 'claude-test', contextTokens: 20_000, config: CONFIG };
      const r = await learnTranscript(`${defaultFixtures()}/ferrule-gateway-customer-note.json`, paths.workspaceDir, opts);
      expect(r.pending).toHaveLength(1);
      expect(r.pending[0]!.error).toMatch(/too large at contextTokens=20000/);
      const records = server.requests.filter((q) => q.body.tool_choice?.name === 'record_rollout');
      const asked = records.length;
      expect(asked).toBeGreaterThanOrEqual(3); // the request, then ever smaller parts of it …
      const bodies = records.map((q) => JSON.stringify(q.body.messages));
      expect(new Set(bodies).size).toBe(asked); // … never the same one twice
      const state = await loadState(paths.stateFile);
      expect(JSON.stringify(state.rollouts)).toContain('too large at contextTokens=20000');
      await runMemoryPipeline({ workspaceDir: paths.workspaceDir, ...opts });
      expect(server.requests.filter((q) => q.body.tool_choice?.name === 'record_rollout')).toHaveLength(asked);
      // A smaller window is a different request: it is tried.
      await runMemoryPipeline({ workspaceDir: paths.workspaceDir, ...opts, contextTokens: 10_000 });
      expect(server.requests.filter((q) => q.body.tool_choice?.name === 'record_rollout').length).toBeGreaterThan(asked);
      expect(await readFile(paths.stateFile, 'utf8')).toContain('contextTokens=10000');
    } finally {
      await server.close();
      await rm(paths.workspaceDir, { recursive: true, force: true });
    }
  });
});
