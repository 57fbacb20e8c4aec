import type { Command } from 'commander';
import { MnemaraError } from '../../config/errors.js';
import { defaultStoreDir } from '../../config/paths.js';
import { createBranch, deleteBranch, lineageHistory, listLineages, resetLineage, type LineageInfo } from '../../session/lineage.js';
import { openStore, type DirectoryStore } from '../../snapshot/index.js';
import { emit, formatBytes } from '../output.js';
import { snapshotRef } from '../snapshot-ref.js';
import { addConfigOptions, loadCliConfig, type ConfigCliOptions } from './config.js';
import { snapshotConfigKeepingLayout } from '../../memory/layout.js';

type Opts = ConfigCliOptions & { json?: boolean };

async function store(opts: Opts): Promise<DirectoryStore> {
  const { config } = loadCliConfig(opts);
  return openStore(config.snapshot.store ?? defaultStoreDir(), snapshotConfigKeepingLayout(config));
}

const size = (bytes: number | undefined): string => (bytes === undefined ? '?' : formatBytes(bytes));

function renderList(ls: LineageInfo[], root: string): string {
  if (ls.length === 0) return `no lineages in ${root}`;
  return ls
    .flatMap((l) => [
      `${l.name}`,
      l.error
        ? `  head      DAMAGED: ${l.error}\n            repair: mnemara lineage reset ${l.name} SNAPSHOT   (see mnemara snapshot list -l ${l.name})`
        : `  head      ${l.head ?? '(none)'}${l.headKind ? ` (${l.headKind}, ${size(l.headBytes)})` : ''}`,
      `  stored    ${l.snapshots} snapshot(s), ${size(l.storedBytes)}`,
      `  last run  ${l.lastRun ? `${l.lastRun.rolloutId} (head written ${l.lastRun.at})` : '(none)'}`,
      ...l.branches.map((b) => `  branch    ${b.name} → ${b.snapshot}`),
      '',
    ])
    .join('\n')
    .trimEnd();
}

const LINEAGE_COMMANDS = ['list', 'show', 'reset', 'branch', 'delete'];

/** The usage error for `mnemara lineage WORD` where WORD is no subcommand: most often a lineage name meant for `show`. */
function unknownLineageCommand(word: string): MnemaraError {
  return new MnemaraError('USAGE', `unknown lineage command '${word}' (the commands are ${LINEAGE_COMMANDS.join(', ')})`, {
    hint: `to see the history of lineage ${word}: mnemara lineage show ${word}`,
  });
}

/** Registers `mnemara lineage` (list, show, reset, branch, delete): heads and branches of the snapshot store. */
export function registerLineageCommand(program: Command): void {
  const cmd = program
    .command('lineage')
    .summary('list lineages and branches, show a history, move a head (reset), create and delete branches')
    .description(
      'A lineage is a named chain of snapshots whose head is where the next run starts; a branch (LINEAGE@NAME) ' +
        'keeps a snapshot off the head: the code of a session that could not land, a rollout left pending, the old ' +
        'head of a reset. Branches are never pruned until deleted here. See docs/session.md.',
    );
  const sub = (name: string, description: string, isDefault = false): Command =>
    addConfigOptions(cmd.command(name, { isDefault }).description(description).option('--json', 'print the result as one JSON document'));

  // `mnemara lineage` alone lists, as `mnemara memory show` alone does (trial 21 F3: it printed the help, exit 2).
  // The default command takes any word after `lineage`: commander would otherwise call `mnemara lineage ci/main`
  // "too many arguments for 'list'", which tells a user nothing (trial 21).
  const list = sub('list', 'Every lineage: head, size, last run, branches (the default: `mnemara lineage` alone).', true).allowExcessArguments(true);
  list.action(async (opts: Opts) => {
    if (list.args[0] !== undefined) throw unknownLineageCommand(list.args[0]);
    const s = await store(opts);
    const ls = await listLineages(s);
    emit(Boolean(opts.json), { lineages: ls }, () => renderList(ls, s.root));
  });

  sub('show <name>', 'History of a lineage or branch: its snapshots, and each run with its outcome and lessons.').action(async (name: string, opts: Opts) => {
    const { config } = loadCliConfig(opts);
    const h = await lineageHistory(await store(opts), name, config.memory.layout);
    emit(Boolean(opts.json), h, () =>
      [
        `${h.name}  head ${h.head}`,
        ...(h.memoryError ? [`  (memory unreadable: ${h.memoryError}; outcomes and lessons unknown)`] : []),
        '',
        'runs (newest first)',
        ...(h.runs.length === 0 ? ['  (none)'] : []),
        ...h.runs.flatMap((r) => [
          `  ${r.rolloutId}  ${r.outcome ?? 'pending (not extracted yet)'}  in ${r.snapshot}`,
          ...(r.task ? [`      task: ${r.task.split('\n')[0]!.slice(0, 100)}`] : []),
          ...r.lessons.map((t, i) => `      - ${t.replace(/\s+/g, ' ').slice(0, 110)}${r.lessonsAlsoFrom[i]?.length ? `  (also from ${r.lessonsAlsoFrom[i]!.join(', ')})` : ''}`),
        ]),
        '',
        'snapshots (newest first)',
        ...h.chain.map((c) => `  ${c.id}  ${c.kind.padEnd(9)}  ${size(c.bytes).padStart(9)}  ${c.createdAt}${c.newRollouts.length ? `  +${c.newRollouts.join(', ')}` : ''}`),
        ...(h.branches.length ? ['', 'branches', ...h.branches.map((b) => `  ${b.name} → ${b.snapshot}`)] : []),
      ].join('\n'),
    );
  });

  sub('reset <lineage> <snapshot>', 'Move the head to a snapshot (e.g. an older one, to repair a damaged head); the old head is kept as a branch.')
    .option('--force', "move the head to a snapshot of another lineage (refused otherwise: it brings that project's tree and memory)")
    .action(async (lineage: string, snapshot: string, opts: Opts & { force?: boolean }) => {
      const s = await store(opts);
      const r = await resetLineage(s, lineage, await snapshotRef(s, snapshot), { force: Boolean(opts.force) });
      emit(Boolean(opts.json), r, () =>
        [
          `${r.lineage}: head ${r.from ?? '(none)'} → ${r.to}`,
          ...(r.keptAs ? [`  old head kept on branch ${r.keptAs} (mnemara lineage delete ${r.keptAs} to let it be pruned)`] : []),
          ...(r.note ? [`  note: ${r.note}`] : []),
        ].join('\n'),
      );
    });

  sub('branch <name> [snapshot]', 'Name a snapshot (default: the lineage head) as the branch LINEAGE@NAME.').action(
    async (name: string, snapshot: string | undefined, opts: Opts) => {
      const s = await store(opts);
      const b = await createBranch(s, name, snapshot === undefined ? undefined : await snapshotRef(s, snapshot));
      emit(Boolean(opts.json), b, () => `branch ${b.name} → ${b.snapshot}`);
    },
  );

  sub('delete <branch>', 'Delete a branch (its snapshots can then be pruned); a lineage head is moved with reset instead.').action(
    async (name: string, opts: Opts) => {
      const b = await deleteBranch(await store(opts), name);
      emit(Boolean(opts.json), { deleted: b }, () => `deleted branch ${b.name} (was ${b.snapshot}); \`mnemara snapshot prune\` can now remove its snapshots`);
    },
  );
}
