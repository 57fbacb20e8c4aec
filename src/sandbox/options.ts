import { SandboxConfigSchema, type SandboxConfig } from '../config/sandbox.js';
import { SandboxError } from './errors.js';

const KEYS = Object.keys(SandboxConfigSchema.shape) as (keyof SandboxConfig)[];

/**
 * The sandbox options a caller gave, checked against `SandboxConfigSchema` and completed with its defaults.
 * Undefined fields take the default. Throws `SandboxError('INVALID_INPUT')` naming the option, the value and
 * the rule it broke.
 */
export function resolveSandboxConfig(options: Partial<Record<keyof SandboxConfig, unknown>>): SandboxConfig {
  const given: Record<string, unknown> = {};
  for (const key of KEYS) if (options[key] !== undefined) given[key] = options[key];
  const parsed = SandboxConfigSchema.safeParse(given);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const key = issue.path.join('.');
  const value = given[key];
  throw new SandboxError(
    'INVALID_INPUT',
    `sandbox option ${key} = ${JSON.stringify(value)} (${typeof value}) is invalid: ${issue.message}`,
    { hint: `fix sandbox.${key} (mnemara config lists every option and its default)` },
  );
}
