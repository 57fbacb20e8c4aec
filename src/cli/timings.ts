import { SESSION_STEPS, type SessionResult } from '../session.js';

/**
 * `mnemara run --timings`: every session step with its wall time, and under it the parts the step reported
 * (`SessionResult.timings.parts`, keyed `<step>.<part>`), in ms; then how the workspace snapshot was taken.
 * Parts are measured inside their step, so they add up to at most the step's time.
 */
export function formatTimings(r: SessionResult): string {
  const parts = r.timings.parts ?? {};
  const prefixOf: Record<string, string> = { restore: 'restore', 'snapshot-workspace': 'snapshot', publish: 'publish' };
  const lines = ['', 'timings (ms)'];
  for (const s of SESSION_STEPS) {
    const ms = r.timings[s];
    if (ms === undefined) continue;
    lines.push(`  ${s.padEnd(20)} ${String(ms).padStart(8)}`);
    const prefix = prefixOf[s];
    if (!prefix) continue;
    // In the order they ran (the order they were recorded in).
    for (const [k, v] of Object.entries(parts).filter(([k]) => k.startsWith(`${prefix}.`))) {
      lines.push(`    ${k.slice(prefix.length + 1).padEnd(18)} ${String(v).padStart(8)}`);
    }
  }
  lines.push(`  ${'total'.padEnd(20)} ${String(r.timings.totalMs).padStart(8)}`);
  const mode = r.workspaceSnapshotMode;
  if (mode) {
    lines.push(
      mode.kind === 'changes'
        ? `  workspace snapshot from the changes only: ${mode.paths} paths out, ${mode.deleted} deleted, ${mode.bytes} bytes`
        : `  workspace snapshot from the whole stream: ${mode.reason}`,
    );
  }
  return lines.join('\n');
}
