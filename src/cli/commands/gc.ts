import type { Command } from 'commander';
import { MnemaraError } from '../../config/errors.js';
import { leftOutRoot, removeLeftOut, type LeftOutRun } from '../../session/left-out-files.js';
import { emit, formatBytes } from '../output.js';
import { addConfigOptions, loadCliConfig, type ConfigCliOptions } from './config.js';

type Opts = ConfigCliOptions & { json?: boolean; dryRun?: boolean; leftOutNow?: boolean; leftOutDays?: string };

const runLine = (verb: string, r: LeftOutRun): string =>
  `  ${verb} ${r.dir}  (${r.files} file(s), ${formatBytes(r.bytes)}, newest ${new Date(r.newestMs).toISOString()})`;

/**
 * Registers `mnemara gc`: removes what mnemara keeps in its home for the user past its retention. Today that is
 * `<home>/left-out/` (the files runs set aside instead of packing: secrets), after `snapshot.leftOutDays`.
 * The snapshot store has its own `mnemara snapshot gc`; sandboxes have `mnemara sandbox prune`.
 */
export function registerGcCommand(program: Command): void {
  const cmd = program
    .command('gc')
    .summary('remove files set aside from snapshots (<home>/left-out/) past their retention')
    .description(
      'Remove what mnemara keeps in its home for you once its retention has passed: the files a run wrote that hold ' +
        'a token, and credential files, which runs set aside in <home>/left-out/<rollout-id>/ (readable only by you) ' +
        'instead of packing them into a snapshot. A run\'s folder goes once its newest file is older than ' +
        'snapshot.leftOutDays (default 7); --left-out-now removes them all at once. `mnemara doctor` lists them. ' +
        'Store blobs: `mnemara snapshot gc`; sandboxes: `mnemara sandbox prune`.',
    )
    .option('--left-out-days <n>', 'keep left-out files this many days (overrides snapshot.leftOutDays)')
    .option('--left-out-now', 'remove every left-out file now, whatever its age (copy what you need first)')
    .option('--dry-run', 'list what would be removed, remove nothing')
    .option('--json', 'print the result as one JSON document: {leftOut: {dir, days, removed, kept}} (each run: rolloutId, dir, files, bytes, newestMs, oldestMs)');
  addConfigOptions(cmd).action(async (opts: Opts) => {
    const { config } = loadCliConfig(opts);
    const days = opts.leftOutDays === undefined ? config.snapshot.leftOutDays : Number(opts.leftOutDays);
    if (!Number.isFinite(days) || days < 0) {
      throw new MnemaraError('USAGE', `--left-out-days must be a number of days, 0 or more, got ${JSON.stringify(opts.leftOutDays)}`, { hint: 'e.g. --left-out-days 7, or --left-out-now to remove them all' });
    }
    const r = await removeLeftOut(config.home, { olderThanDays: days, all: Boolean(opts.leftOutNow), dryRun: Boolean(opts.dryRun) });
    const verb = opts.dryRun ? 'would remove' : 'removed';
    emit(Boolean(opts.json), { leftOut: { dir: leftOutRoot(config.home), days, ...r } }, () =>
      [
        `left-out: ${verb} ${r.removed.length} run folder(s), kept ${r.kept.length} (retention ${opts.leftOutNow ? 'none: --left-out-now' : `${days} day(s)`})`,
        ...r.removed.map((x) => runLine(verb, x)),
        ...r.kept.map((x) => runLine('kept', x)),
      ].join('\n'),
    );
  });
}
