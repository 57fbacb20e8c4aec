import { z } from 'zod';
import { AgentConfigSchema } from './agent.js';
import { MemoryConfigSchema } from './memory.js';
import { SandboxConfigSchema } from './sandbox.js';
import { SnapshotConfigSchema } from './snapshot.js';

/**
 * Where the model is: the Anthropic API or anything that speaks its Messages wire format
 * (a gateway, a local server). Both come from `ANTHROPIC_API_KEY` / `ANTHROPIC_BASE_URL` by default.
 */
export const AnthropicConfigSchema = z.object({
  apiKey: z.string().min(1).optional(),
  baseUrl: z.url({ protocol: /^https?$/ }).optional(),
  /** One model request's time limit (ms) before the SDK gives up on it and retries (its own default: 10 minutes). */
  requestTimeoutMs: z.number().int().positive().default(600_000),
});
export type AnthropicConfig = z.infer<typeof AnthropicConfigSchema>;

/**
 * The whole configuration: one section per module (each section's schema lives beside its module's
 * options in `src/config/<module>.ts` and is owned there). `prefault({})` runs `{}` through each section
 * so that its own defaults fill in; zod 4's `default({})` would skip them.
 */
export const MnemaraConfigSchema = z.object({
  /** Where all of mnemara's state lives (absolute path); see `paths.ts`. */
  home: z.string().min(1),
  anthropic: AnthropicConfigSchema.prefault({}),
  sandbox: SandboxConfigSchema.prefault({}),
  snapshot: SnapshotConfigSchema.prefault({}),
  agent: AgentConfigSchema.prefault({}),
  memory: MemoryConfigSchema.prefault({}),
});
export type MnemaraConfig = z.infer<typeof MnemaraConfigSchema>;

/** What kind of value an option takes, as far as parsing a string (env var, flag) needs to know. */
export type OptionKind = 'string' | 'number' | 'integer' | 'boolean' | 'enum' | 'array';

/** One leaf option of the configuration, found by walking the schema (so a section owner's new option appears here). */
export interface OptionInfo {
  /** Dotted path, e.g. `agent.maxTurns`. */
  path: string;
  kind: OptionKind;
  /** Allowed values of an enum. */
  values?: string[];
  /** The leaf schema (defaults and optionals unwrapped). */
  schema: z.ZodType;
  /** A path on the host: relative values are resolved against the directory of where they came from. */
  isPath: boolean;
  /** Printed masked by `mnemara config`. */
  isSecret: boolean;
  /**
   * Decides where the user's key goes, which model they pay for, how isolated the agent is or how the store
   * spends their disk: a workspace's own `mnemara.config.json`
   * (the repository may be someone else's) may not set it; flags, env, `$MNEMARA_HOME/config.json` and
   * `--config FILE` may.
   */
  trusted: boolean;
}

/** Options that name host paths (resolved to absolute when loaded). */
const PATH_OPTIONS = new Set(['home', 'snapshot.store']);
/**
 * Options (and sections, with a trailing dot) that only the user may set; see `OptionInfo.trusted`. The models:
 * a repository would choose what the user pays for (issue #10). The store's compression and chain length: either
 * direction costs the user's disk or time (workspace-rule.ts). The memory
 * layout too: what it names is left out of `snapshot patch` and `apply`, so a repository's file that set it to
 * `src` hid the run's source changes from review (thirteenth trial F7). `snapshot.ignore` for the same reason: a
 * repository's `["*"]` gave every run an empty snapshot, `["src"]` dropped the run's source edits from the lineage
 * and from `apply`, with the run "completed" (trial 24 N1); a person sets it in their own config.
 */
const TRUSTED = ['home', 'snapshot.ignore', 'anthropic.', 'agent.model', 'memory.model', 'snapshot.codec', 'snapshot.level', 'snapshot.maxChainLength', 'sandbox.backend', 'sandbox.dockerHost', 'sandbox.image', 'sandbox.network', 'sandbox.memoryBytes', 'sandbox.cpus', 'sandbox.pidsLimit', 'sandbox.tmpBytes', 'sandbox.maxWorkspaceBytes', 'sandbox.workspaceCacheBytes', 'snapshot.store', 'snapshot.keepCredentialFiles', 'memory.layout.'];
const SECRET_NAME = /(key|token|secret|password)$/i;

type AnyDef = { type: string; innerType?: z.ZodType; element?: z.ZodType; entries?: Record<string, string> };
const defOf = (s: z.ZodType): AnyDef => (s as unknown as { def: AnyDef }).def;

/** Strips `default`, `prefault`, `optional`, `nullable` and `readonly` wrappers. */
function unwrap(schema: z.ZodType): z.ZodType {
  let s = schema;
  for (let d = defOf(s); ['default', 'prefault', 'optional', 'nullable', 'readonly'].includes(d.type); d = defOf(s)) {
    s = d.innerType as z.ZodType;
  }
  return s;
}

function kindOf(leaf: z.ZodType): OptionKind {
  const def = defOf(leaf);
  if (def.type === 'number') return (leaf as z.ZodNumber).isInt ? 'integer' : 'number';
  if (def.type === 'boolean') return 'boolean';
  if (def.type === 'enum') return 'enum';
  if (def.type === 'array') return 'array';
  return 'string';
}

/** Every leaf option of `schema` (default: the whole configuration), in declaration order. */
export function listOptions(schema: z.ZodType = MnemaraConfigSchema, prefix: string[] = []): OptionInfo[] {
  const s = unwrap(schema);
  if (defOf(s).type === 'object') {
    return Object.entries((s as z.ZodObject).shape).flatMap(([key, child]) =>
      listOptions(child as z.ZodType, [...prefix, key]),
    );
  }
  const path = prefix.join('.');
  const kind = kindOf(s);
  const entries = defOf(s).entries;
  return [
    {
      path,
      kind,
      ...(kind === 'enum' && entries ? { values: Object.values(entries) } : {}),
      schema: s,
      isPath: PATH_OPTIONS.has(path),
      isSecret: SECRET_NAME.test(prefix.at(-1) ?? ''),
      trusted: TRUSTED.some((t) => (t.endsWith('.') ? path.startsWith(t) : path === t)),
    },
  ];
}

/** What an option allows, in words, for error messages and `docs/configuration.md`. */
export function describeAllowed(option: OptionInfo): string {
  switch (option.kind) {
    case 'enum':
      return `one of ${(option.values ?? []).join(', ')}`;
    case 'boolean':
      return 'true or false (env/flags also take 1/0, yes/no, on/off)';
    case 'integer':
    case 'number': {
      const what = option.kind === 'integer' ? 'whole number' : 'number';
      // The schema's own bounds (zod keeps them on the number schema), so a hint never says "positive" when the
      // minimum is 16 (sandbox.pidsLimit) or 6 MiB (sandbox.memoryBytes).
      const { minValue, maxValue } = option.schema as z.ZodNumber;
      const min = typeof minValue === 'number' && minValue > Number.MIN_SAFE_INTEGER ? minValue : undefined;
      const max = typeof maxValue === 'number' && maxValue < Number.MAX_SAFE_INTEGER ? maxValue : undefined;
      const range = [min !== undefined ? `≥ ${min}` : '', max !== undefined ? `≤ ${max}` : ''].filter(Boolean).join(' and ');
      // `.positive()` shows as an exclusive minimum of 0: said as "positive" below.
      if (min !== undefined && min !== 0) return `a ${what} ${range}`;
      if (!option.schema.safeParse(0).success) return `a positive ${what}${max !== undefined ? ` ≤ ${max}` : ''}`;
      if (range) return `a ${what} ${range}`;
      return `a ${what}`;
    }
    case 'array':
      return 'a list of strings (a JSON array; env/flags also take a comma-separated list)';
    default:
      if (option.path === 'anthropic.baseUrl') return 'an http(s) URL';
      return option.schema.safeParse('').success ? 'a string' : 'a non-empty string';
  }
}

/**
 * The environment variable of an option: `MNEMARA_` + the path in SCREAMING_SNAKE_CASE
 * (`agent.maxTurns` → `MNEMARA_AGENT_MAX_TURNS`).
 */
export function envNameOf(path: string): string {
  return `MNEMARA_${path
    .split('.')
    .map((p) => p.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase())
    .join('_')}`;
}

/** Short names people already use, read when the canonical variable is not set. */
export const ENV_ALIASES: Record<string, string[]> = {
  'anthropic.apiKey': ['ANTHROPIC_API_KEY'],
  'anthropic.baseUrl': ['ANTHROPIC_BASE_URL'],
  'agent.model': ['MNEMARA_MODEL'],
  'snapshot.store': ['MNEMARA_STORE'],
};
