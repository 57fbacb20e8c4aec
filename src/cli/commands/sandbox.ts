import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { mnemaraHome } from '../../config/paths.js';
import { pruneSandboxes, type PruneResult } from '../../sandbox/index.js';
import { findGoneSandboxes } from '../../session/stranded.js';
import { openStore } from '../../snapshot/index.js';
import { emit } from '../output.js';
import { loadCliConfig } from './config.js';

function describePrune(r: PruneResult, dryRun: boolean): string {
  const verb = dryRun ? 'would remove' : 'removed';
  const lines = [`${verb} ${r.containers.length} container(s) and ${r.volumes.length} volume(s)`];
  for (const c of r.containers) lines.push(`  container ${c.name}  session ${c.session}  (${c.state})`);
  for (const v of r.volumes) lines.push(`  volume    ${v.slice(0, 24)}`);
  for (const c of r.stranded) lines.push(`  kept      ${c.name}  session ${c.session}  (${c.why}; run \`mnemara recover\` first to save it as a branch; --force removes it and the work)`);
  if (r.stranded.length) lines.push(`${r.stranded.length} sandbox(es) hold unsaved work of killed sessions: run \`mnemara recover\` first`);
  for (const c of r.inUse) lines.push(`  kept      ${c.name}  session ${c.session}  (in use by process ${c.process}; --force removes it)`);
  for (const c of r.unlabelled) lines.push(`  unowned   ${c.name}  session ${c.session}  (${c.state}; no home label: made by an older mnemara, perhaps for another home; --include-unlabelled removes it)`);
  if (r.otherHomes) lines.push(`  left alone ${r.otherHomes} container(s) of other mnemara homes on this engine (prune them from their home)`);
  for (const f of r.failed) lines.push(`  could not remove ${f.id}: ${f.error}`);
  if (r.disks?.length) lines.push(`freed ${r.disks.length} workspace loop device(s) or unattached image(s) of removed sandboxes (${r.disks.join(', ')})`);
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
        'mnemara.session=<id> and mnemara.home=<hash of its MNEMARA_HOME>); sessions remove their own, and `prune` ' +
        "removes what a crash left behind, of this home only. See docs/sandbox.md.",
    );
  sandbox
    .command('prune')
    .description(
      'Remove leftover sandbox containers (running or not) and their volumes of this mnemara home (the mnemara=1 ' +
        'and mnemara.home labels), and this home\'s workspace cache.\n\n' +
        'A sandbox whose mnemara process still runs on this host is in use and kept, unless --force; so is the ' +
        'sandbox of a killed session holding its unsaved work (run `mnemara recover` first: it saves that work as a branch). Other homes\' ' +
        'sandboxes are never touched (--all-homes overrides); sandboxes without a home label (older mnemara versions) ' +
        'are listed as unowned and kept, unless --include-unlabelled.',
    )
    .option('--home <dir>', 'the mnemara home whose sandboxes to prune; default $MNEMARA_HOME or ~/.local/share/mnemara')
    .option('--include-unlabelled', 'also remove sandboxes without a home label (made by an older mnemara; they may be another home\'s)')
    .option('--all-homes', 'remove leftovers of every mnemara home on this engine, labelled or not')
    .option('--session <id>', 'only the sandboxes of this session')
    .option('--force', 'also remove sandboxes whose process still runs (it will fail its next command)')
    .option('--dry-run', 'list what would be removed, remove nothing')
    .option('--json', 'print the result as one JSON document: {containers, volumes, inUse, stranded, unlabelled, otherHomes, failed, disks, cacheEntries}')
    .action(async (opts: { session?: string; dryRun?: boolean; force?: boolean; json?: boolean; home?: string; includeUnlabelled?: boolean; allHomes?: boolean }) => {
      const home = opts.home ? resolve(opts.home) : mnemaraHome();
      // The container of a killed session may hold the only copy of its work: kept until recover saved it.
      const keep = new Map<string, string>();
      if (!opts.force) {
        const storeDir = opts.home ? join(home, 'store') : (loadCliConfig({}).config.snapshot.store ?? join(home, 'store'));
        for (const g of await findGoneSandboxes(await openStore(storeDir), home)) {
          if (g.stranded) keep.set(g.containerId, `holds the unsaved work of rollout ${g.rolloutId} of ${g.lineage ?? 'an unknown lineage'}`);
        }
      }
      const result = await pruneSandboxes({
        ...(opts.session ? { sessionId: opts.session } : {}),
        dryRun: Boolean(opts.dryRun),
        force: Boolean(opts.force),
        keep,
        home,
        includeUnlabelled: Boolean(opts.includeUnlabelled),
        allHomes: Boolean(opts.allHomes),
      });
      emit(Boolean(opts.json), result, () => describePrune(result, Boolean(opts.dryRun)));
      if (result.failed.length) process.exitCode = 1;
    });
  sandbox
    .command('list')
    .description('List this mnemara home\'s sandbox containers: in use, or leftovers that `prune` would remove; and unlabelled ones of older versions.')
    .option('--home <dir>', 'the mnemara home whose sandboxes to list; default $MNEMARA_HOME or ~/.local/share/mnemara')
    .option('--json', 'print the result as one JSON document')
    .action(async (opts: { json?: boolean; home?: string }) => {
      const result = await pruneSandboxes({ dryRun: true, home: opts.home ? resolve(opts.home) : mnemaraHome() });
      const all = [
        ...result.inUse.map((c) => ({ ...c, inUse: true, unowned: false })),
        ...result.containers.map((c) => ({ ...c, inUse: false, unowned: false })),
        ...result.unlabelled.map((c) => ({ ...c, inUse: false, unowned: true })),
      ];
      const whatOf = (c: (typeof all)[number]): string =>
        c.unowned ? 'unowned: no home label, made by an older mnemara' : c.inUse ? `in use by ${c.process}` : 'leftover';
      emit(Boolean(opts.json), all, () =>
        all.length ? all.map((c) => `${c.name}  session ${c.session}  (${c.state}, ${whatOf(c)})`).join('\n') : 'no sandbox containers',
      );
    });
}
