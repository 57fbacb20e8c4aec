/**
 * Issue #10 ("treat every repository as hostile"): a repository's own `mnemara.config.json` could still raise
 * the budgets the trial named (agent.maxOutputTokens, memory.contextTokens, memory.maxRawMemories,
 * memory.memoryMdTokens, snapshot.headWaitMinutes) and choose the models the user pays for, and was obeyed.
 * One test per kind; `mnemara config -w DIR` shows where each value came from and what was refused.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MnemaraError } from '../../src/config/errors.js';
import { describeConfig, loadConfig } from '../../src/config/load.js';
import { CAPS } from '../../src/config/workspace-rule.js';

const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));

let dir: string;
let home: string;
let workspace: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mnemara-caps-'));
  home = join(dir, 'home');
  workspace = join(dir, 'ws');
  mkdirSync(home);
  mkdirSync(workspace);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const repoFile = (data: unknown): void => writeFileSync(join(workspace, 'mnemara.config.json'), JSON.stringify(data));

function refusal(): MnemaraError {
  try {
    loadConfig({ env: { MNEMARA_HOME: home }, workspace });
  } catch (err) {
    expect(err).toBeInstanceOf(MnemaraError);
    expect((err as MnemaraError).code).toBe('INVALID_CONFIG');
    return err as MnemaraError;
  }
  throw new Error('expected the workspace file to be refused');
}

// The trial's file, plus the other budgets of the same kind.
const RAISED = {
  agent: { maxOutputTokens: 128_000 },
  memory: { contextTokens: 99_999_999, maxRawMemories: 100_000, memoryMdTokens: 9_999_999, summaryTokens: 999_999, readBudgetTokens: 999_999 },
  snapshot: { headWaitMinutes: 100_000, leftOutDays: 36_500 },
};

describe("a workspace's own config file", () => {
  it('may not raise any budget that costs the user money, time or disk above its default, and may lower each', () => {
    repoFile(RAISED);
    const err = refusal();
    for (const [path, value] of Object.entries({
      'agent.maxOutputTokens': 128_000,
      'memory.contextTokens': 99_999_999,
      'memory.maxRawMemories': 100_000,
      'memory.memoryMdTokens': 9_999_999,
      'memory.summaryTokens': 999_999,
      'memory.readBudgetTokens': 999_999,
      'snapshot.headWaitMinutes': 100_000,
      'snapshot.leftOutDays': 36_500,
    })) {
      expect(err.message).toContain(`${path} to ${value} (default ${CAPS[path]})`);
    }
    expect(err.message).toContain('may only lower');
    // Lowering is the repository's to do; the user's own file may raise.
    repoFile({ agent: { maxOutputTokens: 1024 }, memory: { contextTokens: 8000, maxRawMemories: 10 }, snapshot: { headWaitMinutes: 1 } });
    const lowered = loadConfig({ env: { MNEMARA_HOME: home }, workspace });
    expect(lowered.config.agent.maxOutputTokens).toBe(1024);
    expect(lowered.config.memory.contextTokens).toBe(8000);
    expect(lowered.config.snapshot.headWaitMinutes).toBe(1);
    rmSync(join(workspace, 'mnemara.config.json'));
    writeFileSync(join(home, 'config.json'), JSON.stringify(RAISED));
    expect(loadConfig({ env: { MNEMARA_HOME: home }, workspace }).config.memory.contextTokens).toBe(99_999_999);
  });

  it('may not choose the models the user pays for, which the user may set anywhere of theirs', () => {
    repoFile({ agent: { model: 'claude-opus-4' }, memory: { model: 'claude-opus-4' } });
    const err = refusal();
    expect(err.message).toContain('sets agent.model, memory.model, which a workspace\'s own config file may not set');
    expect(err.hint).toContain('which model you pay for');
    rmSync(join(workspace, 'mnemara.config.json'));
    writeFileSync(join(home, 'config.json'), JSON.stringify({ agent: { model: 'claude-opus-4' } }));
    expect(loadConfig({ env: { MNEMARA_HOME: home }, workspace }).config.agent.model).toBe('claude-opus-4');
    expect(loadConfig({ env: { MNEMARA_HOME: home, MNEMARA_MEMORY_MODEL: 'm' }, workspace }).config.memory.model).toBe('m');
  });

  it("may not set the store's compression or chain length, which cost disk or time in either direction", () => {
    for (const snapshot of [{ codec: 'none' }, { level: 22 }, { maxChainLength: 1 }, { maxChainLength: 100_000 }]) {
      repoFile({ snapshot });
      expect(refusal().message).toContain(`sets snapshot.${Object.keys(snapshot)[0]}`);
    }
  });

  // Trial 24 N1: a repository's `["*"]` gave every run an empty snapshot and `["src"]` dropped the run's source
  // edits from the lineage and from `apply`, the run saying "completed". The user's own config may still set it.
  it('may not set snapshot.ignore, which decides what of the run is kept; the user may', () => {
    for (const ignore of [['*'], ['src', 'sessions'], ['node_modules/.cache']]) {
      repoFile({ snapshot: { ignore } });
      expect(refusal().message).toContain('sets snapshot.ignore');
    }
    rmSync(join(workspace, 'mnemara.config.json'));
    writeFileSync(join(home, 'config.json'), JSON.stringify({ snapshot: { ignore: ['build'] } }));
    expect(loadConfig({ env: { MNEMARA_HOME: home }, workspace }).config.snapshot.ignore).toEqual(['build']);
  });

  it('is shown by `mnemara config -w DIR` value by value: what was taken, from where, and what was refused and why', async () => {
    repoFile({ agent: { model: 'claude-opus-4', maxOutputTokens: 128_000, maxTurns: 7 }, memory: { contextTokens: 99_999_999 } });
    const file = join(workspace, 'mnemara.config.json');
    // In code: `refusals: 'report'` leaves them out and lists them.
    const loaded = loadConfig({ env: { MNEMARA_HOME: home }, workspace, refusals: 'report' });
    expect(loaded.config.agent.model).toBe(loadConfig({ env: { MNEMARA_HOME: home } }).config.agent.model);
    expect(loaded.config.agent.maxOutputTokens).toBe(CAPS['agent.maxOutputTokens']);
    expect(loaded.refused.map((r) => [r.path, r.why])).toEqual([['agent.model', 'trusted'], ['agent.maxOutputTokens', 'raises'], ['memory.contextTokens', 'raises']]);
    const rows = Object.fromEntries(describeConfig(loaded).map((r) => [r.option, r]));
    expect(rows['agent.maxTurns']).toMatchObject({ value: 7, source: `file ${file}` });
    expect(rows['agent.maxTurns']?.refused).toBeUndefined();
    expect(rows['agent.maxOutputTokens']).toMatchObject({ value: 8192, source: 'default' });
    expect(rows['agent.maxOutputTokens']?.refused).toBe(`refused from ${file}: 128000 (above the default 8192, a workspace's file may only lower it)`);
    expect(rows['agent.model']?.refused).toContain("only the user's own config may set it");

    // The command prints them instead of stopping; every other command stops on them.
    const env = { MNEMARA_HOME: home, PATH: process.env.PATH ?? '' };
    const shown = await execa(process.execPath, ['--import', 'tsx', MAIN, 'config', '-w', workspace], { env, extendEnv: false, reject: false });
    expect(shown.exitCode).toBe(0);
    const line = (option: string): string => shown.stdout.split('\n').find((l) => l.startsWith(`${option} `)) ?? '';
    expect(line('agent.maxOutputTokens')).toMatch(/8192\s+default; refused from .*: 128000 \(above the default 8192/);
    expect(line('agent.model')).toContain(`refused from ${file}: "claude-opus-4"`);
    expect(line('agent.maxTurns')).toMatch(/7\s+file /);
    expect(shown.stdout).toContain('refused: 3 value(s)');
    const json = await execa(process.execPath, ['--import', 'tsx', MAIN, 'config', '-w', workspace, '--json'], { env, extendEnv: false, reject: false });
    expect(JSON.parse(json.stdout).refused).toEqual([
      { path: 'agent.model', file, why: 'trusted' },
      { path: 'agent.maxOutputTokens', file, why: 'raises', cap: 8192 },
      { path: 'memory.contextTokens', file, why: 'raises', cap: 200_000 },
    ]);
  }, 60_000);
});
