/**
 * What a workspace's own `mnemara.config.json` may set. That file travels with the repository, which may be
 * someone else's (issue #10: "treat every repository as hostile"), so it may not choose where the API key goes,
 * which model the user pays for or how isolated the agent is (`OptionInfo.trusted`), and it may lower but not
 * raise the budgets that cost the user money, time or disk (`CAPS`).
 */
import { MnemaraError } from './errors.js';
import { MnemaraConfigSchema, listOptions } from './schema.js';

/**
 * Options a workspace's file may lower but not raise above their defaults, each because raising it spends
 * something of the user's. Decided key by key over the whole schema (the rest are trusted, or cost nothing):
 * - `sandbox.execTimeoutMs` (time: one command), `sandbox.maxOutputBytes` (tokens and memory: what the model reads);
 * - `agent.maxTurns`, `agent.maxTokens`, `agent.maxOutputTokens` (money: a run's and one call's spend);
 * - `memory.maxRawMemories`, `memory.memoryMdTokens`, `memory.summaryTokens`, `memory.readBudgetTokens`,
 *   `memory.contextTokens` (money: what the pipeline and every later prompt send; disk: what memory keeps);
 * - `snapshot.headWaitMinutes` (time: how long a run may wait on the head), `snapshot.leftOutDays` (disk: how
 *   long set-aside files, credentials among them, stay under the home).
 * Both directions cost for `snapshot.codec`, `snapshot.level` and `snapshot.maxChainLength` (less compression or
 * a shorter chain fills the store, more compression or a longer chain takes time), so those are trusted instead.
 */
export const CAPPED_PATHS = [
  'sandbox.execTimeoutMs',
  'sandbox.maxOutputBytes',
  'agent.maxTurns',
  'agent.maxTokens',
  'agent.maxOutputTokens',
  'memory.maxRawMemories',
  'memory.memoryMdTokens',
  'memory.summaryTokens',
  'memory.readBudgetTokens',
  'memory.contextTokens',
  'snapshot.headWaitMinutes',
  'snapshot.leftOutDays',
] as const;

/** Each capped option's default, the most a workspace's file may set it to (in the option's own unit). */
export const CAPS: Record<string, number> = (() => {
  const defaults = MnemaraConfigSchema.parse({ home: '/' }) as unknown as Record<string, Record<string, number>>;
  return Object.fromEntries(CAPPED_PATHS.map((path) => {
    const [section, key] = path.split('.') as [string, string];
    return [path, defaults[section]![key]!];
  }));
})();

const TRUSTED = new Set(listOptions().filter((o) => o.trusted).map((o) => o.path));

/** A value of a workspace's file that was not taken, and why. */
export interface RefusedValue {
  /** Dotted option path. */
  path: string;
  value: unknown;
  /** The workspace's config file. */
  file: string;
  /** `trusted`: only the user may set it; `raises`: above `cap`, the option's default. */
  why: 'trusted' | 'raises';
  cap?: number;
}

/** The values among `entries` (read from the workspace's `file`) that it may not set. Pure. */
export function workspaceRefusals(file: string, entries: [string, unknown][]): RefusedValue[] {
  return entries.flatMap(([path, value]): RefusedValue[] => {
    if (TRUSTED.has(path)) return [{ path, value, file, why: 'trusted' }];
    const cap = CAPS[path];
    // A wrong type is left to the schema, whose error names what is allowed.
    if (cap !== undefined && typeof value === 'number' && value > cap) return [{ path, value, file, why: 'raises', cap }];
    return [];
  });
}

/** The `INVALID_CONFIG` error for the refused values of one workspace file (`refused` is not empty). */
export function refusalError(file: string, refused: RefusedValue[]): MnemaraError {
  const raised = refused.filter((r) => r.why === 'raises');
  const trusted = refused.filter((r) => r.why === 'trusted');
  const parts = [
    ...(trusted.length ? [`sets ${trusted.map((r) => r.path).join(', ')}, which a workspace's own config file may not set`] : []),
    ...(raised.length ? [`raises ${raised.map((r) => `${r.path} to ${String(r.value)} (default ${r.cap})`).join(', ')}, which a workspace's own config file may only lower`] : []),
  ];
  const why = [
    ...(trusted.length ? ['Options that decide where your API key goes, which model you pay for and how isolated the agent is are yours to set.'] : []),
    ...(raised.length ? ['A repository may make limits stricter, not looser.'] : []),
  ];
  return new MnemaraError('INVALID_CONFIG', `${file} ${parts.join('; and ')}`, {
    hint:
      `The repository may not be yours. ${why.join(' ')} Remove them from ${file}, or set them with --set option=value, ` +
      'an environment variable, $MNEMARA_HOME/config.json or --config FILE (`mnemara config -w DIR` shows each refused value).',
  });
}

/** How a refused value reads in `mnemara config`: `refused from FILE: VALUE (…)`. */
export function describeRefusal(r: RefusedValue): string {
  const why = r.why === 'raises' ? `above the default ${r.cap}, a workspace's file may only lower it` : "only the user's own config may set it";
  return `refused from ${r.file}: ${JSON.stringify(r.value)} (${why})`;
}
