import { posix } from 'node:path';
import type { Segment } from '../commands.js';
import { commandOf, type Step } from '../rollout.js';

/**
 * Where a command runs (issue 12 item 5): its directory (from `cd`, which the agent's shell keeps from one
 * command to the next) and the package a workspace flag selects (`pnpm --filter web`, `npm -w @x/app`,
 * `cargo -p core`, `make -C services/api`). A lint failure in one package is not fixed by a lint run in
 * another: the fix rule compares `where` before it calls two commands the same check.
 */
export interface Where {
  cwd: string;
  /** The selected package or sub-directory, '' when none. */
  target: string;
}

const ROOT = '/workspace';

/** The directory each step starts in (index = step.index), following `cd`/`pushd` of earlier steps. */
export function stepDirectories(steps: Step[], segmentsOf: (step: Step) => Segment[]): Map<number, string> {
  const out = new Map<number, string>();
  let cwd = ROOT;
  for (const step of steps) {
    out.set(step.index, cwd);
    if (!commandOf(step)) continue;
    for (const seg of segmentsOf(step)) cwd = afterCd(cwd, seg);
  }
  return out;
}

/** Where `seg` of `segs` runs, when its step started in `start`. */
export function whereOf(start: string, segs: Segment[], seg: Segment): Where {
  let cwd = start;
  for (const s of segs) {
    if (s === seg) break;
    cwd = afterCd(cwd, s);
  }
  return { cwd: norm(cwd), target: targetOf(seg, cwd) };
}

/**
 * True when `later` runs where `failed` ran: the same directory, and the same package unless the failed
 * command named none (then choosing the package, `cargo run -p tools --bin migrate`, may be the fix itself).
 * Known gap: a root `pnpm lint` that failed in one package and a `--filter` run of another package pass this.
 */
export function sameWhere(later: Where, failed: Where): boolean {
  return later.cwd === failed.cwd && (later.target === failed.target || failed.target === '');
}

function afterCd(cwd: string, seg: Segment): string {
  if ((seg.program !== 'cd' && seg.program !== 'pushd') || !seg.args[0] || seg.args[0] === '-') return cwd;
  return resolveDir(cwd, seg.args[0]);
}

function resolveDir(cwd: string, dir: string): string {
  if (dir.startsWith('~') || dir.startsWith('$')) return dir;
  return posix.resolve(cwd, dir);
}

const norm = (d: string) => (d.length > 1 ? d.replace(/\/+$/, '') : d);

const SELECTORS = new Set(['--filter', '-F', '--workspace', '-w', '-p', '--package', '--project', '--prefix', '--dir', '-C', '--manifest-path', '--cwd']);

function targetOf(seg: Segment, cwd: string): string {
  for (const [i, a] of seg.args.entries()) {
    const eq = /^(--[\w-]+)=(.+)$/.exec(a);
    const [flag, value] = eq ? [eq[1]!, eq[2]!] : [a, seg.args[i + 1]];
    if (!SELECTORS.has(flag) || !value) continue;
    // A directory flag names a place: the same place typed another way is the same target.
    return ['-C', '--dir', '--prefix', '--cwd', '--manifest-path'].includes(flag) ? `dir:${norm(resolveDir(cwd, value))}` : `pkg:${value}`;
  }
  return '';
}
