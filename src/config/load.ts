import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { MnemaraError } from './errors.js';
import { mnemaraHome } from './paths.js';
import { describeRefusal, refusalError, workspaceRefusals, type RefusedValue } from './workspace-rule.js';
import {
  ENV_ALIASES,
  MnemaraConfigSchema,
  describeAllowed,
  envNameOf,
  listOptions,
  type MnemaraConfig,
  type OptionInfo,
} from './schema.js';

/** Where one option's effective value came from. `name` is the flag, the variable or the file path. */
export interface ConfigSource {
  kind: 'default' | 'file' | 'env' | 'flag';
  name?: string;
}

/** The effective configuration and the origin of every option (dotted path → source). */
export interface LoadedConfig {
  config: MnemaraConfig;
  sources: Record<string, ConfigSource>;
  /** Config files read, lowest precedence first. */
  files: string[];
  /** Values of the workspace's file that were not taken (only with `refusals: 'report'`; else empty). */
  refused: RefusedValue[];
}

/** A value set on the command line: the option's dotted path, the raw value and the flag that set it. */
export interface FlagValue {
  path: string;
  value: unknown;
  flag: string;
}

export interface LoadConfigOptions {
  /** Command-line values (highest precedence). Strings are parsed like env vars; other values are taken as they are. */
  flags?: FlagValue[];
  env?: NodeJS.ProcessEnv;
  /** The workspace: its `mnemara.config.json` is read when present. */
  workspace?: string;
  /** `--config FILE`: read instead of the workspace's and `$MNEMARA_HOME/config.json`. */
  configFile?: string;
  cwd?: string;
  /**
   * What to do with values the workspace's file may not set (`workspace-rule.ts`): `throw` (default) the
   * `INVALID_CONFIG` error that names them; `report`: leave them out and list them in `LoadedConfig.refused`,
   * for `mnemara config` to show.
   */
  refusals?: 'throw' | 'report';
}

/** Name of the per-workspace config file. */
export const WORKSPACE_CONFIG_FILE = 'mnemara.config.json';

const OPTIONS = listOptions();
const BY_PATH = new Map(OPTIONS.map((o) => [o.path, o]));

function describeSource(s: ConfigSource): string {
  return s.kind === 'default' ? 'default' : `${s.kind} ${s.name}`;
}

function invalid(option: OptionInfo, value: unknown, source: ConfigSource, why: string, custom = false): MnemaraError {
  return new MnemaraError(
    'INVALID_CONFIG',
    `invalid ${option.path} = ${JSON.stringify(value)} (from ${describeSource(source)}): ${why}`,
    // A refinement's own words say what is allowed; the type's ("a non-empty string") would not.
    { hint: `${option.path} must be ${custom ? why : describeAllowed(option)}.` },
  );
}

/** Parses a string from an env var or a flag into the option's type; schema checks come later. */
function parseString(option: OptionInfo, raw: string, source: ConfigSource): unknown {
  const text = raw.trim();
  switch (option.kind) {
    case 'number':
    case 'integer': {
      const n = text === '' ? Number.NaN : Number(text.replace(/_/g, ''));
      if (!Number.isFinite(n)) throw invalid(option, raw, source, 'not a number');
      return n;
    }
    case 'boolean': {
      const t = text.toLowerCase();
      if (['true', '1', 'yes', 'on'].includes(t)) return true;
      if (['false', '0', 'no', 'off'].includes(t)) return false;
      throw invalid(option, raw, source, 'not a boolean');
    }
    case 'array':
      if (text.startsWith('[')) {
        try {
          return JSON.parse(text) as unknown;
        } catch {
          throw invalid(option, raw, source, 'not a valid JSON array');
        }
      }
      return text === '' ? [] : text.split(',').map((s) => s.trim()).filter(Boolean);
    default:
      return raw;
  }
}

function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.');
  let node = target;
  for (const key of keys.slice(0, -1)) {
    const next = node[key];
    node = (typeof next === 'object' && next !== null ? next : (node[key] = {})) as Record<string, unknown>;
  }
  node[keys.at(-1) as string] = value;
}

function getPath(target: unknown, path: (string | number | symbol)[]): unknown {
  let node = target;
  for (const key of path) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<string | number | symbol, unknown>)[key];
  }
  return node;
}

/** Closest known option by edit distance, for "did you mean" hints on typos. */
function closest(path: string): string | undefined {
  const dist = (a: string, b: string): number => {
    const row = Array.from({ length: b.length + 1 }, (_, i) => i);
    for (let i = 1; i <= a.length; i++) {
      let prev = row[0] as number;
      row[0] = i;
      for (let j = 1; j <= b.length; j++) {
        const cur = row[j] as number;
        row[j] = Math.min(cur + 1, (row[j - 1] as number) + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
        prev = cur;
      }
    }
    return row[b.length] as number;
  };
  const best = OPTIONS.map((o) => ({ path: o.path, d: dist(path.toLowerCase(), o.path.toLowerCase()) })).sort(
    (x, y) => x.d - y.d,
  )[0];
  return best && best.d <= Math.max(2, Math.floor(path.length / 4)) ? best.path : undefined;
}

/** Flattens a parsed config file into dotted leaf paths, refusing keys that are not options. */
function flattenFile(data: unknown, file: string, prefix = ''): [string, unknown][] {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new MnemaraError('INVALID_CONFIG', `${file}${prefix ? ` at ${prefix}` : ''}: expected a JSON object`, {
      hint: 'A config file is one JSON object of sections, e.g. {"agent": {"maxTurns": 20}}.',
    });
  }
  return Object.entries(data).flatMap(([key, value]) => {
    const path = prefix ? `${prefix}.${key}` : key;
    if (BY_PATH.has(path)) return [[path, value] as [string, unknown]];
    if (OPTIONS.some((o) => o.path.startsWith(`${path}.`))) return flattenFile(value, file, path);
    const guess = closest(path);
    throw new MnemaraError('INVALID_CONFIG', `${file}: unknown option "${path}"`, {
      hint: guess ? `Did you mean "${guess}"? (mnemara config lists every option)` : 'Run `mnemara config` to list every option.',
    });
  });
}

function readConfigFile(file: string): [string, unknown][] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new MnemaraError('NOT_FOUND', `cannot read config file ${file}: ${(err as Error).message}`, {
      hint: 'Check the path given to --config.',
      cause: err,
    });
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new MnemaraError('INVALID_CONFIG', `${file} is not valid JSON: ${(err as Error).message}`, {
      hint: 'Fix the JSON syntax (no comments or trailing commas).',
      cause: err,
    });
  }
  const entries = flattenFile(data, file);
  if (entries.some(([path]) => path === 'home')) {
    throw new MnemaraError('INVALID_CONFIG', `${file}: "home" cannot be set in a config file`, {
      hint: 'The home directory locates the config file; set MNEMARA_HOME or pass --home instead.',
    });
  }
  return entries;
}

/**
 * Loads the effective configuration: defaults < config file(s) < environment < flags, validated by
 * `MnemaraConfigSchema`. Files: `--config FILE` alone when given; else `$MNEMARA_HOME/config.json` then the
 * workspace's `mnemara.config.json` (the workspace's wins). Relative paths in a file are resolved against the
 * file's directory; from env and flags against `cwd`. `snapshot.store` defaults to `<home>/store`. The workspace's
 * file may not set trusted options (`OptionInfo.trusted`: the API endpoint and key, the models, the sandbox's
 * backend, image, network and limits, the store) nor raise a capped one above its default (`workspace-rule.ts`);
 * with `refusals: 'report'` such values are left out and listed in `refused` instead of thrown.
 * Throws `MnemaraError` `INVALID_CONFIG` naming the option, the value, its source and what is allowed, or
 * `NOT_FOUND` for an unreadable `--config` file.
 */
export function loadConfig(options: LoadConfigOptions = {}): LoadedConfig {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const merged: Record<string, unknown> = {};
  const sources: Record<string, ConfigSource> = {};
  const put = (path: string, value: unknown, source: ConfigSource, base: string): void => {
    const option = BY_PATH.get(path) as OptionInfo;
    // A URL (s3://bucket/prefix) names no host path: resolving it against a directory would make it one.
    setPath(merged, path, option.isPath && typeof value === 'string' && !/^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? resolve(base, value) : value);
    sources[path] = source;
  };

  // home first: it locates $MNEMARA_HOME/config.json.
  const homeFlag = options.flags?.find((f) => f.path === 'home');
  if (homeFlag) put('home', String(homeFlag.value), { kind: 'flag', name: homeFlag.flag }, cwd);
  else if (env.MNEMARA_HOME) {
    // A flag is read where it is typed; an exported variable travels to commands run from other directories, each
    // of which would then find another home, and the first run's rollouts and sandboxes "lost" (twelfth trial F27).
    if (!isAbsolute(env.MNEMARA_HOME)) {
      throw new MnemaraError('INVALID_CONFIG', `MNEMARA_HOME=${env.MNEMARA_HOME} is a relative path: each command would find its home under the directory it runs in (here ${resolve(cwd, env.MNEMARA_HOME)})`, {
        hint: `Give an absolute path: export MNEMARA_HOME=${resolve(cwd, env.MNEMARA_HOME)}`,
      });
    }
    put('home', env.MNEMARA_HOME, { kind: 'env', name: 'MNEMARA_HOME' }, cwd);
  }
  else put('home', mnemaraHome(env), { kind: 'default' }, cwd);
  const home = merged.home as string;

  const files = options.configFile
    ? [resolve(cwd, options.configFile)]
    : [join(home, 'config.json'), ...(options.workspace ? [join(resolve(cwd, options.workspace), WORKSPACE_CONFIG_FILE)] : [])].filter(
        (f) => existsSync(f),
      );
  const refused: RefusedValue[] = [];
  for (const file of files) {
    let entries = readConfigFile(file);
    if (!options.configFile && file !== join(home, 'config.json')) {
      const mine = workspaceRefusals(file, entries);
      if (mine.length && options.refusals !== 'report') throw refusalError(file, mine);
      for (const r of mine) refused.push(r);
      entries = entries.filter(([path]) => !mine.some((r) => r.path === path));
    }
    for (const [path, value] of entries) put(path, value, { kind: 'file', name: file }, dirname(file));
  }

  for (const option of OPTIONS) {
    if (option.path === 'home') continue;
    const name = [envNameOf(option.path), ...(ENV_ALIASES[option.path] ?? [])].find((n) => env[n] !== undefined && env[n] !== '');
    if (!name) continue;
    const source: ConfigSource = { kind: 'env', name };
    put(option.path, parseString(option, env[name] as string, source), source, cwd);
  }

  for (const flag of options.flags ?? []) {
    if (flag.path === 'home' || flag.value === undefined) continue;
    const option = BY_PATH.get(flag.path);
    if (!option) {
      const guess = closest(flag.path);
      throw new MnemaraError('USAGE', `unknown option "${flag.path}" (from ${flag.flag})`, {
        hint: guess ? `Did you mean "${guess}"? (mnemara config lists every option)` : 'Run `mnemara config` to list every option.',
      });
    }
    const source: ConfigSource = { kind: 'flag', name: flag.flag };
    put(flag.path, typeof flag.value === 'string' ? parseString(option, flag.value, source) : flag.value, source, cwd);
  }

  const parsed = MnemaraConfigSchema.safeParse(merged);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = (issue?.path ?? []).map(String).join('.');
    const option = BY_PATH.get(path) ?? OPTIONS.find((o) => path.startsWith(`${o.path}.`));
    if (!option) throw new MnemaraError('INVALID_CONFIG', `invalid configuration: ${issue?.message ?? 'unknown error'}`);
    const source = sources[option.path] ?? { kind: 'default' };
    throw invalid(option, getPath(merged, option.path.split('.')), source, issue?.message ?? 'invalid', issue?.code === 'custom');
  }
  const config = parsed.data;
  if (config.snapshot.store === undefined) config.snapshot.store = join(config.home, 'store');
  for (const option of OPTIONS) sources[option.path] ??= { kind: 'default' };
  return { config, sources, files, refused };
}

/** Masks a secret for display: the first 3 and last 4 characters when long enough, else `***`. */
export function maskSecret(value: string): string {
  return value.length >= 16 ? `${value.slice(0, 3)}…${value.slice(-4)}` : '***';
}

/**
 * The configuration as a list of rows for display: dotted path, value (secrets masked), source, and the
 * environment variable that sets it; `refused` when the workspace's file set the option and was not obeyed
 * (`LoadedConfig.refused`): what it asked for and why not.
 * `value` is `undefined` for an unset optional option.
 */
export function describeConfig(
  loaded: LoadedConfig,
): { option: string; value: unknown; source: string; env: string; refused?: string }[] {
  const mask = (option: OptionInfo, value: unknown): unknown => (option.isSecret && typeof value === 'string' ? maskSecret(value) : value);
  return OPTIONS.map((option) => {
    const value = getPath(loaded.config, option.path.split('.'));
    const source = loaded.sources[option.path] ?? { kind: 'default' };
    const refused = (loaded.refused ?? []).find((r) => r.path === option.path);
    return {
      option: option.path,
      value: mask(option, value),
      source: describeSource(source),
      env: envNameOf(option.path),
      ...(refused ? { refused: describeRefusal({ ...refused, value: mask(option, refused.value) }) } : {}),
    };
  });
}
