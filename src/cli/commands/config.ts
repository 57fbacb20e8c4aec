import { resolve } from 'node:path';
import type { Command } from 'commander';
import { describeConfig, loadConfig, WORKSPACE_CONFIG_FILE, type FlagValue, type LoadedConfig } from '../../config/load.js';
import { MnemaraError } from '../../config/errors.js';
import { emit, shellWord } from '../output.js';

/** Options every command that loads the configuration accepts. */
export interface ConfigCliOptions {
  config?: string;
  home?: string;
  store?: string;
  workspace?: string;
  set?: string[];
}

/** Adds `--config`, `--home` and `--store` to a command (`--workspace` is each command's own). */
export function addConfigOptions(cmd: Command): Command {
  return cmd
    .option('--config <file>', `config file to read instead of $MNEMARA_HOME/config.json and <workspace>/${WORKSPACE_CONFIG_FILE}`)
    .option('--home <dir>', 'mnemara home (state, default store); default $MNEMARA_HOME or ~/.local/share/mnemara')
    .option('--store <dir|url>', 'snapshot store: a directory, or s3://BUCKET/PREFIX (S3-compatible object storage); default <home>/store')
    .option('-s, --set <option=value>', 'set any option by its path (repeatable), e.g. --set sandbox.pidsLimit=256', collect, []);
}

/**
 * The flags among `opts` that chose where the state is (`--home`, `--store`, `--config`), as text for a printed
 * command (each with a leading space; paths made absolute, a URL kept; shell-quoted): a command printed without
 * them looks in the default home and store (twelfth trial F26). '' when none was given.
 */
export function storeFlags(opts: ConfigCliOptions): string {
  const path = (v: string): string => shellWord(/^[a-z][a-z0-9+.-]*:\/\//i.test(v) ? v : resolve(v));
  return [
    ...(opts.config !== undefined ? [` --config ${path(opts.config)}`] : []),
    ...(opts.home !== undefined ? [` --home ${path(opts.home)}`] : []),
    ...(opts.store !== undefined ? [` --store ${path(opts.store)}`] : []),
  ].join('');
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/**
 * Loads the configuration from the common flags plus a command's own flag values (flags > env > file > defaults).
 * `refusals`: see `LoadConfigOptions.refusals` (every command but `config` stops on a refused workspace value).
 */
export function loadCliConfig(opts: ConfigCliOptions, flags: FlagValue[] = [], refusals: 'throw' | 'report' = 'throw'): LoadedConfig {
  const common: FlagValue[] = [];
  if (opts.home !== undefined) common.push({ path: 'home', value: opts.home, flag: '--home' });
  if (opts.store !== undefined) common.push({ path: 'snapshot.store', value: opts.store, flag: '--store' });
  for (const assignment of opts.set ?? []) {
    const eq = assignment.indexOf('=');
    if (eq <= 0) {
      throw new MnemaraError('USAGE', `--set ${assignment}: expected option=value`, {
        hint: 'For example --set agent.maxTurns=20 (mnemara config lists every option).',
      });
    }
    common.push({ path: assignment.slice(0, eq), value: assignment.slice(eq + 1), flag: `--set ${assignment.slice(0, eq)}` });
  }
  return loadConfig({
    flags: [...common, ...flags],
    ...(opts.workspace !== undefined ? { workspace: opts.workspace } : {}),
    ...(opts.config !== undefined ? { configFile: opts.config } : {}),
    refusals,
  });
}

function show(value: unknown): string {
  if (value === undefined || value === null) return '(unset)';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** Registers `mnemara config`: the effective configuration, secrets masked, with where each value came from. */
export function registerConfigCommand(program: Command): void {
  addConfigOptions(
    program
      .command('config')
      .summary('print the effective configuration, secrets masked, with the source of each value')
      .description(
        'Print the effective configuration and where each value came from.\n\n' +
          'Precedence: command-line flags > environment variables > config file > defaults. ' +
          `Config files: --config FILE, else $MNEMARA_HOME/config.json and then <workspace>/${WORKSPACE_CONFIG_FILE}. ` +
          'Every option has an environment variable: MNEMARA_ + its path in SCREAMING_SNAKE_CASE ' +
          '(agent.maxTurns → MNEMARA_AGENT_MAX_TURNS); ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL are read too. ' +
          'Secrets (API keys) are printed masked. Every option is described in docs/configuration.md.',
      )
      .option('-w, --workspace <dir>', `workspace whose ${WORKSPACE_CONFIG_FILE} to read`, '.')
      .option('--json', 'print one JSON document: {files, options: [{option, value, source, env, refused?}], refused: [{path, file, why, cap?}]}'),
  ).action((opts: ConfigCliOptions & { json?: boolean }) => {
    // Shown, not thrown: the user asking what a repository's file does should see every value and which ones were
    // refused (a run in that workspace stops on them, with the same names).
    const loaded = loadCliConfig(opts, [], 'report');
    const rows = describeConfig(loaded);
    // The refused values themselves stay in the rows' text (masked there when secret), not in the JSON list.
    const refused = loaded.refused.map(({ value: _value, ...r }) => r);
    emit(Boolean(opts.json), { files: loaded.files, options: rows.map((r) => ({ ...r, value: r.value ?? null })), refused }, () => {
      const width = (key: 'option' | 'value'): number =>
        Math.max(...rows.map((r) => (key === 'option' ? r.option : show(r.value)).length), key.length);
      const [w1, w2] = [width('option'), Math.min(width('value'), 48)];
      const lines = [
        `config files: ${loaded.files.length ? loaded.files.join(', ') : '(none)'}`,
        '',
        `${'option'.padEnd(w1)}  ${'value'.padEnd(w2)}  source`,
        ...rows.map((r) => `${r.option.padEnd(w1)}  ${show(r.value).padEnd(w2)}  ${r.source}${r.refused ? `; ${r.refused}` : ''}`),
        ...(loaded.refused.length
          ? ['', `refused: ${loaded.refused.length} value(s) of the workspace's own config file (above); \`mnemara run\` in this workspace stops until they are removed or set by you (--set, env, $MNEMARA_HOME/config.json)`]
          : []),
      ];
      return lines.join('\n');
    });
  });
}
