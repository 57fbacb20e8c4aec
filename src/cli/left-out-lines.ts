import type { ChainSkip } from '../snapshot/chain-skipped.js';
import { listedPath } from './output.js';

/**
 * The note a restore into `dir` prints for what its chain left out when taken (`skippedInChain`): a count, the
 * first five paths with their reason and snapshot, and where to see the rest. No lines when nothing was left out.
 */
export function leftOutLines(leftOut: ChainSkip[], dir: string): string[] {
  if (leftOut.length === 0) return [];
  const shown = (p: string): string => listedPath(p.length > 120 ? `${p.slice(0, 117)}…` : p);
  return [
    `note: ${leftOut.length}${leftOut.length >= 100 ? '+' : ''} path(s) were left out when this snapshot or one it builds on was taken, so they are not in ${dir}:`,
    ...leftOut.slice(0, 5).map((l) => `  ${shown(l.path)}: ${l.reason} (snapshot ${l.snapshot})`),
    ...(leftOut.length > 5 ? [`  … and ${leftOut.length - 5} more: mnemara snapshot show ${leftOut[5]!.snapshot}`] : []),
  ];
}
