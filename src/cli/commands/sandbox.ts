import type { Command } from 'commander';
import { pruneSandboxes, type PruneResult } from '../../sandbox/index.js';
import { emit } from '../output.js';

function describePrune(r: PruneResult, dryRun: boolean): string {
  const verb = dryRun ? 'would remove' : 'removed';
  const lines = [`${verb} ${r.containers.length} container(s) and ${r.volumes.length} volume(s)`];
  for (const c of r.containers) lines.push(`  container ${c.name}  session ${c.session}  (${c.state})`);
  for (const v of r.volumes) lines.push(`  volume    ${v.slice(0, 24)}`);
  for (const c of r.inUse) lines.push(`  kept      ${c.name}  session ${c.session}  (in use by process ${c.process}; --force removes it)`);
  for (const f of r.failed) lines.push(`  could not remove ${f.id}: ${f.error}`);
  if (r.cacheEntries?.length) lines.push(`removed ${r.cacheEntries.length} workspace cache entr${r.cacheEntries.length === 1 ? 'y' : 'ies'}`);
  return lines.join('\n');
}

/** Registers `mnemara sandbox` (prune, list): managing the containers mnemara starts. */
export function registerSandboxCommand(program: Command): void {
  const sandbox = program
    .command('sandbox')
    .summary('list and prune mnemara sandbox containers')
    .description(
      'Manage mnemara sandbox containers. Every container mnemara starts carries the label mnemara=1 (plus ' +
        'mnemara.session=<id>); sessions remove their own, and `prune` removes what a crash left behind. See docs/sandbox.md.',
    );
  sandbox
    .command('prune')
    .description(
      'Remove leftover sandbox containers (running or not) and their volumes, found by the mnemara=1 label.\n\n' +
        'A sandbox whose mnemara process still runs on this host is in use and kept, unless --force.',
    )
    .option('--session <id>', 'only the sandboxes of this session')
    .option('--force', 'also remove sandboxes whose process still runs (it will fail its next command)')
    .option('--dry-run', 'list what would be removed, remove nothing')
    .option('--json', 'print the result as one JSON document: {containers, volumes, inUse, failed, cacheEntries}')
    .action(async (opts: { session?: string; dryRun?: boolean; force?: boolean; json?: boolean }) => {
      const result = await pruneSandboxes({
        ...(opts.session ? { sessionId: opts.session } : {}),
        dryRun: Boolean(opts.dryRun),
        force: Boolean(opts.force),
      });
      emit(Boolean(opts.json), result, () => describePrune(result, Boolean(opts.dryRun)));
      if (result.failed.length) process.exitCode = 1;
    });
  sandbox
    .command('list')
    .description('List sandbox containers by the mnemara=1 label: in use, or leftovers that `prune` would remove.')
    .option('--json', 'print the result as one JSON document')
    .action(async (opts: { json?: boolean }) => {
      const result = await pruneSandboxes({ dryRun: true });
      const all = [...result.inUse.map((c) => ({ ...c, inUse: true })), ...result.containers.map((c) => ({ ...c, inUse: false }))];
      emit(Boolean(opts.json), all, () =>
        all.length
          ? all
              .map((c) => `${c.name}  session ${c.session}  (${c.state}, ${c.inUse ? `in use by ${c.process}` : 'leftover'})`)
              .join('\n')
          : 'no sandbox containers',
      );
    });
}
