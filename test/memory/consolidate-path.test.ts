/**
 * `mnemara memory consolidate` runs the model path when a model is configured and falls back to the
 * deterministic consolidation — saying which path ran and why — when none is (no key for the endpoint) or the
 * endpoint gives no structured answer.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consolidateWithFallback } from '../../src/cli/commands/consolidate-path.js';
import { loadConfig } from '../../src/config/load.js';
import { memoryPaths } from '../../src/memory/layout.js';
import { startMessagesServer, text, turn } from '../support/messages-server.js';
import { transcript } from './transcripts.js';

const ROOT = join(import.meta.dirname, '..', '..');
let tmp: string;

/** A workspace with one pending transcript whose run teaches a fix (failing command, then the working one). */
async function workspace(name: string): Promise<string> {
  const ws = join(tmp, name);
  const paths = memoryPaths(ws);
  await mkdir(paths.sessionsDir, { recursive: true });
  await writeFile(
    paths.transcript('r-1'),
    transcript('r-1', [
      { cmd: 'cargo test', output: 'error: linker `cc` not found\nerror: could not compile `ledger` due to previous error', exit: 101 },
      { cmd: 'sudo apt-get install -y clang && export CC=clang', output: 'Setting up clang (1:14.0-55.7) ...', exit: 0 },
      { cmd: 'cargo test', output: 'test result: ok. 31 passed; 0 failed', exit: 0 },
    ], 'Make the tests pass'),
  );
  return ws;
}

const config = (env: Record<string, string>) => loadConfig({ env: { MNEMARA_HOME: join(tmp, 'home'), ...env } }).config;
const quiet = { force: false, contextTokens: 200_000, onProgress: () => {} };

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'mnemara-consolidate-'));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

describe('memory consolidate: which path ran', () => {
  it('no model configured: the deterministic consolidation, and it says so', async () => {
    const ws = await workspace('none');
    const r = await consolidateWithFallback(ws, config({}), quiet);
    expect(r.path).toBe('deterministic');
    expect(r.fallback).toBe(false);
    expect(r.reason).toMatch(/no model configured/);
    expect(r.result.extracted).toEqual(['r-1']);
    expect(await readFile(memoryPaths(ws).memoryMd, 'utf8')).toMatch(/cargo test/);
  });

  it('the model path asked for, but no key for the endpoint: falls back instead of failing', async () => {
    const ws = await workspace('no-key');
    const r = await consolidateWithFallback(ws, config({ MNEMARA_MEMORY_EXTRACTOR: 'model', ANTHROPIC_BASE_URL: 'https://models.example.invalid' }), quiet);
    expect(r).toMatchObject({ path: 'deterministic', fallback: true });
    expect(r.reason).toMatch(/no model configured: No Anthropic API key/);
    expect(r.result.modelCalls).toBe(0);
    expect(r.result.pending).toEqual([]);
    expect(await readFile(memoryPaths(ws).memoryMd, 'utf8')).toMatch(/cargo test/);
  });

  it('an endpoint that gives no structured answer: the model path is tried, then the deterministic one', async () => {
    const ws = await workspace('unstructured');
    const server = await startMessagesServer(() => turn(text('I am a plain chat model and call no tools.')));
    try {
      const r = await consolidateWithFallback(ws, config({ ANTHROPIC_BASE_URL: server.url }), quiet);
      expect(r).toMatchObject({ path: 'deterministic', fallback: true });
      expect(r.reason).toMatch(/no structured answer/);
      expect(server.messageRequests.length).toBeGreaterThan(0);
      expect(r.result.pending).toEqual([]);
      expect(await readFile(memoryPaths(ws).memoryMd, 'utf8')).toMatch(/cargo test/);
    } finally {
      await server.close();
    }
  });

  it('the command line prints the path', async () => {
    const ws = await workspace('cli');
    const out = await execa('node', ['--import', 'tsx', join(ROOT, 'src', 'cli', 'main.ts'), 'memory', 'consolidate', '--workspace', ws], {
      reject: false,
      env: { MNEMARA_HOME: join(tmp, 'home'), ANTHROPIC_API_KEY: '', ANTHROPIC_BASE_URL: '', ANTHROPIC_AUTH_TOKEN: '', MNEMARA_MEMORY_EXTRACTOR: 'model' },
      cwd: ROOT,
    });
    expect(out.exitCode).toBe(0);
    expect(out.stdout).toMatch(/^path: deterministic \(fallback\): no model configured/m);
  }, 120_000);
});
