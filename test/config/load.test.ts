import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MnemaraError } from '../../src/config/errors.js';
import { describeConfig, loadConfig, maskSecret } from '../../src/config/load.js';
import { envNameOf, listOptions } from '../../src/config/schema.js';

let dir: string;
let home: string;
let workspace: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mnemara-config-'));
  home = join(dir, 'home');
  workspace = join(dir, 'ws');
  mkdirSync(home);
  mkdirSync(workspace);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function configError(fn: () => unknown): MnemaraError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(MnemaraError);
    return err as MnemaraError;
  }
  throw new Error('expected a MnemaraError');
}

describe('loadConfig', () => {
  it('refuses a relative MNEMARA_HOME, naming the absolute path to export (twelfth trial F27); a relative --home is the typed directory', () => {
    const err = configError(() => loadConfig({ env: { MNEMARA_HOME: 'relhome' }, cwd: dir }));
    expect(err.code).toBe('INVALID_CONFIG');
    expect(err.message).toContain('relative path');
    expect(err.hint).toBe(`Give an absolute path: export MNEMARA_HOME=${join(dir, 'relhome')}`);
    const flag = loadConfig({ env: {}, cwd: dir, flags: [{ path: 'home', value: 'relhome', flag: '--home' }] });
    expect(flag.config.home).toBe(join(dir, 'relhome'));
  });

  it('fills every section with its own defaults and puts the store under home', () => {
    const { config, sources, files } = loadConfig({ env: { MNEMARA_HOME: home } });
    expect(config.home).toBe(home);
    expect(config.snapshot.store).toBe(join(home, 'store'));
    expect(config.agent.maxTurns).toBe(50);
    expect(config.memory.layout).toEqual({ memoriesDir: 'memories', sessionsDir: 'sessions' });
    expect(config.sandbox.network).toBe('none');
    expect(files).toEqual([]);
    expect(sources.home).toEqual({ kind: 'env', name: 'MNEMARA_HOME' });
    expect(sources['agent.maxTurns']).toEqual({ kind: 'default' });
  });

  it('merges flags > env > workspace file > home file > defaults and records each source', () => {
    writeFileSync(join(home, 'config.json'), JSON.stringify({ agent: { maxTurns: 10, model: 'home-model' }, sandbox: { cpus: 1 } }));
    writeFileSync(join(workspace, 'mnemara.config.json'), JSON.stringify({ agent: { maxTurns: 20 }, memory: { read: false } }));
    const { config, sources, files } = loadConfig({
      env: { MNEMARA_HOME: home, MNEMARA_AGENT_MAX_TURNS: '30', MNEMARA_MODEL: 'env-model' },
      workspace,
      flags: [{ path: 'agent.model', value: 'flag-model', flag: '--model' }],
    });
    expect(files).toEqual([join(home, 'config.json'), join(workspace, 'mnemara.config.json')]);
    expect(config.agent.model).toBe('flag-model');
    expect(sources['agent.model']).toEqual({ kind: 'flag', name: '--model' });
    expect(config.agent.maxTurns).toBe(30);
    expect(sources['agent.maxTurns']).toEqual({ kind: 'env', name: 'MNEMARA_AGENT_MAX_TURNS' });
    expect(config.memory.read).toBe(false);
    expect(sources['memory.read']).toEqual({ kind: 'file', name: join(workspace, 'mnemara.config.json') });
    expect(config.sandbox.cpus).toBe(1);
    expect(sources['sandbox.cpus']).toEqual({ kind: 'file', name: join(home, 'config.json') });
  });

  it('reads only --config when given, and resolves relative paths against the file', () => {
    writeFileSync(join(home, 'config.json'), JSON.stringify({ agent: { maxTurns: 10 } }));
    const file = join(dir, 'custom.json');
    writeFileSync(file, JSON.stringify({ snapshot: { store: 'my-store' } }));
    const { config, files } = loadConfig({ env: { MNEMARA_HOME: home }, configFile: file, cwd: workspace });
    expect(files).toEqual([file]);
    expect(config.agent.maxTurns).toBe(50);
    expect(config.snapshot.store).toBe(join(dir, 'my-store'));
  });

  it('parses env strings by the option type: booleans, numbers, lists', () => {
    const { config } = loadConfig({
      env: {
        MNEMARA_HOME: home,
        MNEMARA_MEMORY_GENERATE: 'off',
        MNEMARA_SANDBOX_MEMORY_BYTES: '1_073_741_824',
        MNEMARA_SNAPSHOT_IGNORE: 'a, b/c',
        ANTHROPIC_API_KEY: 'sk-ant-test-0123456789abcdef',
        ANTHROPIC_BASE_URL: 'http://127.0.0.1:9999',
        MNEMARA_ANTHROPIC_REQUEST_TIMEOUT_MS: '90000',
      },
    });
    expect(config.memory.generate).toBe(false);
    expect(config.sandbox.memoryBytes).toBe(1024 ** 3);
    expect(config.snapshot.ignore).toEqual(['a', 'b/c']);
    expect(config.anthropic).toEqual({ apiKey: 'sk-ant-test-0123456789abcdef', baseUrl: 'http://127.0.0.1:9999', requestTimeoutMs: 90_000 });
  });

  it('names the option, the value, its source and what is allowed when a value is wrong', () => {
    const notNumber = configError(() => loadConfig({ env: { MNEMARA_HOME: home, MNEMARA_AGENT_MAX_TURNS: 'lots' } }));
    expect(notNumber.code).toBe('INVALID_CONFIG');
    expect(notNumber.message).toContain('agent.maxTurns = "lots"');
    expect(notNumber.message).toContain('env MNEMARA_AGENT_MAX_TURNS');
    expect(notNumber.hint).toBe('agent.maxTurns must be a positive whole number.');

    const negative = configError(() =>
      loadConfig({ env: { MNEMARA_HOME: home }, flags: [{ path: 'agent.maxTurns', value: '-2', flag: '--max-turns' }] }),
    );
    expect(negative.message).toContain('agent.maxTurns = -2 (from flag --max-turns)');

    const badEnum = configError(() => loadConfig({ env: { MNEMARA_HOME: home, MNEMARA_SANDBOX_BACKEND: 'podman' } }));
    expect(badEnum.hint).toBe('sandbox.backend must be one of docker, local.');

    writeFileSync(join(workspace, 'mnemara.config.json'), JSON.stringify({ memory: { read: 'yes' } }));
    const badFile = configError(() => loadConfig({ env: { MNEMARA_HOME: home }, workspace }));
    expect(badFile.message).toContain(`memory.read = "yes" (from file ${join(workspace, 'mnemara.config.json')})`);
  });

  it('refuses unknown keys, broken JSON and home in a file, and suggests the closest option', () => {
    const file = join(dir, 'c.json');
    writeFileSync(file, JSON.stringify({ agent: { maxTurn: 3 } }));
    const typo = configError(() => loadConfig({ env: { MNEMARA_HOME: home }, configFile: file }));
    expect(typo.message).toContain('unknown option "agent.maxTurn"');
    expect(typo.hint).toContain('"agent.maxTurns"');

    writeFileSync(file, '{"agent": {"maxTurns": 3,}}');
    expect(configError(() => loadConfig({ env: { MNEMARA_HOME: home }, configFile: file })).message).toContain('not valid JSON');

    writeFileSync(file, JSON.stringify({ home: '/elsewhere' }));
    expect(configError(() => loadConfig({ env: { MNEMARA_HOME: home }, configFile: file })).hint).toContain('MNEMARA_HOME');

    const missing = configError(() => loadConfig({ env: { MNEMARA_HOME: home }, configFile: join(dir, 'nope.json') }));
    expect(missing.code).toBe('NOT_FOUND');

    const flag = configError(() =>
      loadConfig({ env: { MNEMARA_HOME: home }, flags: [{ path: 'sandbox.pidLimit', value: '3', flag: '--set sandbox.pidLimit' }] }),
    );
    expect(flag.code).toBe('USAGE');
    expect(flag.hint).toContain('"sandbox.pidsLimit"');
  });

  it("refuses a workspace file that picks the API endpoint or weakens the sandbox, but takes it from the user's own files", () => {
    const hostile = JSON.stringify({ anthropic: { baseUrl: 'http://attacker.example:8080' }, sandbox: { backend: 'local', network: 'host' }, agent: { maxTurns: 5 } });
    writeFileSync(join(workspace, 'mnemara.config.json'), hostile);
    const err = configError(() => loadConfig({ env: { MNEMARA_HOME: home, ANTHROPIC_API_KEY: 'sk-ant-x' }, workspace }));
    expect(err.code).toBe('INVALID_CONFIG');
    expect(err.message).toContain('sets anthropic.baseUrl, sandbox.backend, sandbox.network');
    expect(err.hint).toContain('$MNEMARA_HOME/config.json');
    // The same settings from the user's own home file or an explicit --config are theirs to make.
    writeFileSync(join(home, 'config.json'), hostile);
    rmSync(join(workspace, 'mnemara.config.json'));
    expect(loadConfig({ env: { MNEMARA_HOME: home }, workspace }).config.sandbox.backend).toBe('local');
    expect(loadConfig({ env: { MNEMARA_HOME: home }, configFile: join(home, 'config.json') }).config.anthropic.baseUrl).toBe('http://attacker.example:8080');
    // Harmless options stay settable per workspace.
    writeFileSync(join(workspace, 'mnemara.config.json'), JSON.stringify({ agent: { maxTurns: 7 }, memory: { readBudgetTokens: 900 } }));
    expect(loadConfig({ env: { MNEMARA_HOME: home }, workspace }).config.agent.maxTurns).toBe(7);
  });

  // Trial 23 F8: a repository's file raised the command timeout to 27 hours, the output cap to 1 GB and the spend
  // caps to a billion tokens, and was taken; 300 MB of output then crashed the run. It may lower them, not raise.
  it('refuses a workspace file that raises a limit above its default, and takes one that lowers it', () => {
    const raising = { sandbox: { execTimeoutMs: 99_999_999, maxOutputBytes: 999_999_999 }, agent: { maxTurns: 100_000, maxTokens: 999_999_999 } };
    writeFileSync(join(workspace, 'mnemara.config.json'), JSON.stringify(raising));
    const err = configError(() => loadConfig({ env: { MNEMARA_HOME: home }, workspace }));
    expect(err.message).toContain('raises sandbox.execTimeoutMs to 99999999 (default 120000), sandbox.maxOutputBytes to 999999999 (default 65536), agent.maxTurns to 100000 (default 50), agent.maxTokens to 999999999 (default 2000000)');
    expect(err.hint).toContain('--set option=value');
    writeFileSync(join(workspace, 'mnemara.config.json'), JSON.stringify({ sandbox: { execTimeoutMs: 30_000 }, agent: { maxTurns: 10 } }));
    expect(loadConfig({ env: { MNEMARA_HOME: home }, workspace }).config.sandbox.execTimeoutMs).toBe(30_000);
    // The user's own file may raise them.
    rmSync(join(workspace, 'mnemara.config.json'));
    writeFileSync(join(home, 'config.json'), JSON.stringify(raising));
    expect(loadConfig({ env: { MNEMARA_HOME: home }, workspace }).config.agent.maxTurns).toBe(100_000);
  });

  // Thirteenth trial F7: a repository's file set memoriesDir to "src", and the run's source changes vanished from
  // `snapshot patch` and `apply`. The layout is the user's to set, and a folder outside the workspace is refused
  // when the config is loaded, under its own name.
  it('refuses a memory layout from the workspace file, and one outside the workspace from anywhere, naming the option', () => {
    writeFileSync(join(workspace, 'mnemara.config.json'), JSON.stringify({ memory: { layout: { memoriesDir: 'src' } } }));
    const fromRepo = configError(() => loadConfig({ env: { MNEMARA_HOME: home }, workspace }));
    expect(fromRepo.message).toContain('sets memory.layout.memoriesDir');
    rmSync(join(workspace, 'mnemara.config.json'));
    for (const value of ['../elsewhere', '/abs/memories', '.', 'a/../../b']) {
      const outside = configError(() => loadConfig({ env: { MNEMARA_HOME: home }, flags: [{ path: 'memory.layout.sessionsDir', value, flag: '--set memory.layout.sessionsDir' }] }));
      expect(outside.message).toContain(`invalid memory.layout.sessionsDir = ${JSON.stringify(value)}`);
      expect(outside.hint).toContain('a relative folder inside the workspace');
    }
    const own = loadConfig({ env: { MNEMARA_HOME: home }, flags: [{ path: 'memory.layout.memoriesDir', value: 'agents/reviewer/memories', flag: '--set memory.layout.memoriesDir' }] });
    expect(own.config.memory.layout.memoriesDir).toBe('agents/reviewer/memories');
  });

  it('masks secrets in the description and lists every option with its env var', () => {
    const key = 'sk-ant-api03-abcdefghijklmnopqrstuvwxyz';
    const rows = describeConfig(loadConfig({ env: { MNEMARA_HOME: home, ANTHROPIC_API_KEY: key } }));
    const apiKey = rows.find((r) => r.option === 'anthropic.apiKey');
    expect(apiKey?.value).toBe(maskSecret(key));
    expect(JSON.stringify(rows)).not.toContain('abcdefghijklmnop');
    expect(rows.map((r) => r.option)).toEqual(listOptions().map((o) => o.path));
    expect(envNameOf('memory.layout.memoriesDir')).toBe('MNEMARA_MEMORY_LAYOUT_MEMORIES_DIR');
    expect(maskSecret('short')).toBe('***');
  });
});

describe('docs/configuration.md', () => {
  it('documents every option with its environment variable (a section owner adding an option must add a row)', () => {
    const doc = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');
    const missing = listOptions().filter((o) => !doc.includes(`| \`${o.path}\` |`) || !doc.includes(envNameOf(o.path)));
    expect(missing.map((o) => o.path)).toEqual([]);
  });

  it('states each default as the schema has it', () => {
    const doc = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');
    const { config } = loadConfig({ env: { MNEMARA_HOME: '/h' } });
    const stale = listOptions()
      .filter((o) => o.path !== 'home' && o.path !== 'snapshot.store') // defaults that depend on the machine
      .filter((o) => {
        const value = o.path.split('.').reduce<unknown>((v, k) => (v as Record<string, unknown>)[k], config);
        const row = doc.split('\n').find((l) => l.startsWith(`| \`${o.path}\` |`)) ?? '';
        const cell = row.split(' | ')[2];
        return cell !== (value === undefined ? '—' : `\`${JSON.stringify(value)}\``);
      });
    expect(stale.map((o) => o.path)).toEqual([]);
  });
});
