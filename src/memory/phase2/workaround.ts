import type { Candidate } from './merge.js';
import { pushAll } from '../../config/arrays.js';

/**
 * "The workaround is no longer needed" (issue 12, kind 1: a real contradiction, read from structure): a
 * pitfall whose fix only set up the environment in front of the command that failed ("`gleam test` failed …
 * What worked: `export PATH=/opt/otp-27/bin:$PATH && gleam test`", "`TZ=UTC go test ./...`") is stale when a
 * newer rollout ran that same command bare and it exited 0, without that setup anywhere in its run: the
 * environment or the repository has moved on, whatever language the run said so in.
 *
 * Only environment setup counts (`export NAME=…`, `declare -x NAME=…`, `NAME=… cmd`): a setup that writes into
 * the workspace (`cp .env.example .env`, `touch db.sqlite`) persists in the snapshot, so a later bare success
 * proves nothing about it.
 */

/** A newer rollout's evidence: its place (0 = newest), commands that passed, every command it ran. */
export interface RunEvidence {
  order: number;
  passed: string[];
  ran?: string[];
}

/** The environment setup in front of a failed command in `worked`, as `NAME=value` strings; undefined if `worked` is not that shape. */
export function envSetupBefore(worked: string, failed: string): string[] | undefined {
  const w = bare(worked);
  const f = bare(failed);
  if (!f || !w.endsWith(f) || w === f) return undefined;
  const head = w.slice(0, w.length - f.length).trim().replace(/(&&|;)$/, '').trim();
  if (!head) return undefined;
  const assignments: string[] = [];
  for (const part of head.split(/\s*(?:&&|;)\s*/)) {
    const words = part.replace(/^(export|declare -x)\s+/, '').split(/\s+/).filter(Boolean);
    if (words.length === 0 || !words.every((x) => /^[A-Za-z_][A-Za-z0-9_]*=\S*$/.test(x))) return undefined;
    pushAll(assignments, words);
  }
  return assignments;
}

/** The pitfalls among `candidates` whose environment workaround a newer rollout (`runs`) did without. */
export function workaroundsNoLongerNeeded(candidates: Candidate[], runs: RunEvidence[]): Candidate[] {
  const out: Candidate[] = [];
  for (const c of candidates) {
    if (c.kind !== 'pitfall') continue;
    // "What worked: `a`, then `b`": the chain runs in order and its last command is the one that had failed.
    const worked = /what worked:\s*(?:(?:`[^`]+`|changing [^,`]+), then\s*)*`([^`]+)`/i.exec(c.text)?.[1];
    if (!worked) continue;
    const failed = [...c.text.matchAll(/`([^`]+)`\s+failed/gi)].map((m) => m[1]!);
    const setups = failed.map((f) => ({ f, env: envSetupBefore(worked, f) })).filter((x): x is { f: string; env: string[] } => x.env !== undefined);
    if (setups.length === 0) continue;
    const without = runs.some(
      (r) =>
        r.order < c.order &&
        setups.some(({ f, env }) => r.passed.some((p) => bare(p) === bare(f)) && !(r.ran ?? r.passed).some((cmd) => env.some((a) => cmd.includes(a.split('=')[0]! + '=')))),
    );
    if (without) out.push(c);
  }
  return out;
}

/** A command without its leading `cd <dir> &&`, output plumbing and surrounding space. */
function bare(command: string): string {
  return command
    .replace(/^(\s*(cd|pushd)\s+\S+\s*(&&|;)\s*)+/, '')
    .replace(/\s+2>&1|\s*\|\s*(tail|head)\b.*$/g, '')
    .trim();
}
