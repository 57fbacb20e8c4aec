import { existsSync, statSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { MnemaraError } from '../../config/errors.js';
import { defaultStoreDir } from '../../config/paths.js';
import { existingWorkspaceDir, snapshotConfigKeepingLayout } from '../../memory/layout.js';
import { describeTreeRedaction, redactLayoutTree } from '../../memory/redact-tree.js';
import { findOrphans } from '../../session/orphans.js';
import { defaultLineage } from '../../session/start.js';
import type { MemoryConfig, MemoryLayout } from '../../config/memory.js';
import { handMemoryMerger } from '../../session/hand-memory.js';
import { createOnHead } from '../../snapshot/create-on-head.js';
import { readRestoreMarker, writeRestoreMarker } from '../../snapshot/restore-marker.js';
import { recordRestore } from '../restore-record.js';
import { skippedInChain } from '../../snapshot/chain-skipped.js';
import { leftOutLines } from '../left-out-lines.js';
import { diffSnapshots } from '../../snapshot/diff.js';
import { makePatch, type PatchSide } from '../../snapshot/patch.js';
import { copyLineage, type CopyReport } from '../../snapshot/store/copy.js';
import { collectGarbage, pruneSnapshots, squashLineage, verifySnapshots, type CleanupReport } from '../../snapshot/maintenance.js';
import { isS3Store, openSnapshotStore, type AnyStore, type DirectoryStore, type Manifest } from '../../snapshot/index.js';
import { DAMAGED_HEAD_HINT } from '../../snapshot/errors.js';
import { EXIT, emit, formatBytes as size, listedPath, progressPrinter, reportError } from '../output.js';
import { addConfigOptions, loadCliConfig, type ConfigCliOptions } from './config.js';
import { resolveRestorePaths } from '../restore-paths.js';
import { snapshotRef } from '../snapshot-ref.js';
import { noLineage } from '../memory-source.js';
import { codeGuard, describeBranched } from '../snapshot-create-guard.js';

/** Exit code of a restore stopped by SIGINT/SIGTERM (128 + 2, as a shell reports Ctrl-C; `run` uses the same). */
const EXIT_INTERRUPTED = 130;

type Opts = ConfigCliOptions & { json?: boolean };

async function store(opts: Opts): Promise<AnyStore> {
  const { config } = loadCliConfig(opts);
  return openSnapshotStore(config.snapshot.store ?? defaultStoreDir(), snapshotConfigKeepingLayout(config), { home: config.home });
}

/** The store for the maintenance commands, which work on directories; an S3 store is refused with what to do instead. */
async function dirStore(opts: Opts, command: string): Promise<DirectoryStore> {
  const s = await store(opts);
  if (isS3Store(s)) {
    throw new MnemaraError('USAGE', `snapshot ${command} works on directory stores, not on ${s.root}`, {
      hint: `Copy the lineage into a directory store (mnemara snapshot pull --lineage L --from ${s.root} --store DIR) and run it there.`,
    });
  }
  return s;
}

/** The memory layout's folders from the configuration (`memory.layout`), for `--kind memory` and `diff`. */
function layoutDirs(opts: Opts): string[] {
  const { layout } = loadCliConfig(opts).config.memory;
  return [layout.memoriesDir, layout.sessionsDir];
}


const stored = (m: Manifest): number => m.layers.reduce((n, l) => n + l.compressedBytes, 0);

function describeManifest(m: Manifest, heads: Record<string, string>): string {
  const headOf = Object.entries(heads).filter(([, id]) => id === m.id).map(([l]) => l);
  return [
    `snapshot  ${m.id}${headOf.length ? `  (head of ${headOf.join(', ')})` : ''}`,
    `lineage   ${m.lineage}`,
    `kind      ${m.kind}`,
    `parent    ${m.parent ?? '(none)'}`,
    `created   ${m.createdAt} by mnemara ${m.toolVersion}`,
    `rollouts  ${m.rolloutIds.length ? m.rolloutIds.join(', ') : '(none)'}`,
    `layers    ${m.layers.length}, ${size(stored(m))} stored`,
    ...m.layers.map(
      (l, i) =>
        `  ${i + 1}. ${l.delta ? 'delta' : 'full '} ${l.digest.slice(0, 19)}…  ${size(l.compressedBytes)} (${size(l.uncompressedBytes)} tar, ${l.fileCount} entries, ${l.codec}${l.level !== undefined ? ` ${l.level}` : ''})`,
    ),
    ...(m.treeIndex
      ? [`index     ${m.treeIndex.digest.slice(0, 19)}…  ${size(m.treeIndex.compressedBytes)}, ${m.treeIndex.entries} entries${m.treeIndex.bases?.length ? `, a change on ${m.treeIndex.bases.length} earlier index blob(s)` : ', full'}`]
      : []),
    ...(m.skipped?.length ? ['skipped', ...m.skipped.map((s) => `  ${s.path}: ${s.reason}`)] : []),
  ].join('\n');
}

function describeCleanup(r: CleanupReport): string {
  return [
    r.dryRun
      ? `would remove ${r.removedSnapshots.length} snapshot(s), ${r.removedBlobs.length} blob(s); would free ${size(r.freedBytes)} (dry run: nothing removed)`
      : `removed ${r.removedSnapshots.length} snapshot(s), ${r.removedBlobs.length} blob(s), ${r.removedTemp.length} leftover(s); freed ${size(r.freedBytes)}`,
    ...r.removedSnapshots.map((id) => `  ${r.dryRun ? 'would remove ' : ''}snapshot ${id}${r.reasons?.[id] ? `: ${r.reasons[id]}` : ''}`),
    ...r.removedTemp.map((p) => `  leftover ${p}`),
    ...(r.protected?.length
      ? [`kept ${r.protected.length} snapshot(s) holding the work of sessions that never landed (run \`mnemara recover\` to name them as branches):`, ...r.protected.map((k) => `  kept ${k.id}: ${k.why}`)]
      : []),
  ].join('\n');
}

function describeCopy(r: CopyReport, from: string, to: string): string {
  return [
    `${r.lineage}: ${from} → ${to}`,
    `  ${r.copied.length} snapshot(s) copied, ${r.blobs} blob(s) sent (${size(r.bytes)}), ${r.skippedBlobs} already there`,
    `  head ${r.head ?? '(none)'} (${r.headMove})`,
  ].join('\n');
}

function nonNegativeInt(flag: string, value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new MnemaraError('USAGE', `${flag} must be a whole number ≥ 0, got ${JSON.stringify(value)}`, { hint: `For example ${flag} 5` });
  return n;
}

/**
 * For `create --kind memory`: when `dir` was restored from a snapshot that is no longer the head, a merger that
 * lays the head's memory changes into `dir` before packing, so no one's hand edit is dropped (issue 10).
 * Throws `USAGE` when that snapshot is gone from the store (the edits cannot be told apart from the head's).
 */
async function handMerger(s: AnyStore, dir: string, home: string, layout: MemoryLayout, caps: Pick<MemoryConfig, 'memoryMdTokens' | 'summaryTokens'>, progress: boolean) {
  const marker = await readRestoreMarker(home, dir);
  if (!marker) return undefined;
  const known = await s.get(marker.snapshot).then(() => true, () => false);
  if (!known) {
    throw new MnemaraError('USAGE', `${dir} was restored from snapshot ${marker.snapshot}, which is no longer in the store: its hand edits cannot be merged with the head's memory`, {
      hint: `Restore the head into a new directory (mnemara snapshot restore LINEAGE NEWDIR), make your edits there again and snapshot that; nothing was changed.`,
    });
  }
  return handMemoryMerger({ store: s, dir, base: marker.snapshot, layout, caps, tag: `hand-${process.pid}`, onProgress: progressPrinter(progress) });
}

/** Registers `mnemara snapshot` and its subcommands (create, list, show, restore, diff, verify, squash, prune, gc, push, pull). */
export function registerSnapshotCommand(program: Command): void {
  const snap = program
    .command('snapshot')
    .summary('create, list, restore, diff, verify, squash and prune workspace snapshots')
    .description(
      'Save and restore workspaces as snapshots: tar layers in a content-addressed store, chained into lineages. ' +
        'The store is <home>/store ($MNEMARA_HOME/store) unless --store says otherwise. See docs/snapshots.md.',
    );
  const sub = (name: string, description: string): Command =>
    addConfigOptions(snap.command(name).description(description).option('--json', 'print the result as one JSON document'));

  sub('create <dir>', 'Pack a directory into a snapshot: a delta on the lineage head when there is one, then advance the head.')
    .requiredOption('-l, --lineage <name>', 'lineage to add to, e.g. ci/main')
    .option('-k, --kind <kind>', 'workspace (the whole tree) or memory (only the memory layout, memories/ and sessions/ by default; the rest is inherited)', 'workspace')
    .option('--rollout <id...>', 'rollout ids the snapshot contains')
    .option('--full', 'store a full layer even when the lineage has a head')
    .action(async (dir: string, opts: Opts & { lineage: string; kind: string; rollout?: string[]; full?: boolean }) => {
      if (opts.kind !== 'workspace' && opts.kind !== 'memory') {
        throw new MnemaraError('USAGE', `--kind must be workspace or memory, got ${JSON.stringify(opts.kind)}`, { hint: 'Use --kind workspace or --kind memory.' });
      }
      // Before any progress line: a directory that is not there is the user's input (exit 2), said first.
      if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory()) {
        throw new MnemaraError('USAGE', `${dir} is not a directory${existsSync(dir) ? '' : ' (it does not exist)'}`, { hint: 'Pass the directory to snapshot, e.g. `mnemara snapshot create . --lineage NAME`.' });
      }
      const s = await store(opts);
      const layout = layoutDirs(opts);
      const { config } = loadCliConfig(opts);
      const { layout: names } = config.memory;
      // A hand edit of memory is saved this way (README): it is redacted here as a session redacts the agent's notes.
      // A file that cannot be redacted is the user's: moved to <home>/left-out/, never deleted.
      const aside = join(config.home, 'left-out', `snapshot-${new Date().toISOString().replace(/[-:.]/g, '')}-${process.pid}`);
      const redaction = existsSync(dir) ? await redactLayoutTree(resolve(dir), layout, aside) : { redacted: [], renamed: [], refused: [] };
      const redactionLine = describeTreeRedaction(redaction);
      const marker = await readRestoreMarker(config.home, dir);
      const known = marker !== null && (await s.get(marker.snapshot).then(() => true, () => false));
      // A workspace made from an older head keeps the head's memory edits too when its code may land (hand-memory.ts).
      const merger = opts.kind === 'memory' || known ? await handMerger(s, dir, config.home, names, config.memory, !opts.json) : undefined;
      const guard = opts.kind === 'workspace' ? await codeGuard(s, opts.lineage, marker?.snapshot, layout) : undefined;
      const { manifest: m, inherited, keptRecords, branch, moved } = await createOnHead(s, dir, {
        lineage: opts.lineage,
        kind: opts.kind,
        full: Boolean(opts.full),
        ...(opts.kind === 'workspace' ? { inheritMissing: layout } : {}),
        keepRecords: [names.sessionsDir, `${names.memoriesDir}/rollout_summaries`, `${names.memoriesDir}/raw_memories`],
        rolloutIds: opts.rollout ?? [],
        ...(opts.kind === 'memory' ? { scope: layout } : {}),
        onProgress: progressPrinter(!opts.json),
        boundMs: config.snapshot.headWaitMinutes * 60_000,
        ...(merger ? { beforePack: merger.beforePack } : {}),
        ...(guard ? { guard } : {}),
      });
      await writeRestoreMarker(config.home, dir, m.id);
      const last = m.layers[m.layers.length - 1]!;
      const dropped = opts.kind === 'workspace' && opts.full && m.parent === null ? layout.filter((d) => !existsSync(resolve(dir, d))) : [];
      if (branch) {
        process.exitCode = EXIT.failed;
        const head = await s.getHead(opts.lineage);
        emit(Boolean(opts.json), { snapshot: m, head, branch, onHead: false, moved, redaction }, () => describeBranched(dir, m.id, opts.lineage, branch, head, redactionLine, moved, guard?.base ?? null));
        return;
      }
      emit(Boolean(opts.json), { snapshot: m, head: m.id, onHead: true, inherited, keptRecords, redaction }, () =>
        `${m.id}  ${m.lineage} → head\n  ${last.delta ? 'delta' : 'full layer'}: ${last.fileCount} entries, ${size(last.compressedBytes)} stored (${m.layers.length} layer${m.layers.length > 1 ? 's' : ''})` +
        (inherited.length ? `\n  kept the previous head's ${inherited.map((d) => `${d}/`).join(' and ')} (not in ${dir}: the lineage's memory layout stays)` : '') +
        (keptRecords.length ? `\n  kept ${keptRecords.length} rollout record(s) of the head that ${dir} lacks (a snapshot never drops the head's run history): ${keptRecords.slice(0, 5).join(', ')}${keptRecords.length > 5 ? ', …' : ''}` : '') +
        (dropped.length ? `\n  note: ${dir} has no ${dropped.map((d) => `${d}/`).join(' or ')}, and a --full snapshot keeps nothing of a previous head` : '') +
        (m.skipped?.length ? `\n  skipped ${m.skipped.length} path(s): ${m.skipped.map((x) => x.path).join(', ')}` : '') +
        (redactionLine ? `\n  ${redactionLine}` : ''),
      );
    });

  sub('list', 'List complete snapshots, oldest first; heads are marked. -w DIR lists the lineage a run on DIR uses.')
    .option('-l, --lineage <name>', 'only this lineage')
    .option('-w, --workspace <dir>', "only the lineage of this directory (the one `mnemara run -w DIR` uses)")
    .option('-q, --quiet', 'print only the ids, oldest first (the head of a lineage is its last): $(mnemara snapshot list -w DIR -q | tail -1)')
    .action(async (opts: Opts & { lineage?: string; workspace?: string; quiet?: boolean }) => {
      const s = await store(opts);
      const lineage = opts.lineage ?? (opts.workspace !== undefined ? await defaultLineage(await existingWorkspaceDir(opts.workspace)) : undefined);
      const [ms, heads, branches] = await Promise.all([s.list(lineage === undefined ? {} : { lineage }), s.listHeads(), s.listBranches(lineage)]);
      if (opts.lineage !== undefined && ms.length === 0) throw await noLineage(s, `lineage ${opts.lineage} has no snapshots in ${s.root}`);
      const isHead = new Set(Object.values(heads));
      if (opts.quiet && !opts.json) {
        if (ms.length) process.stdout.write(`${ms.map((m) => m.id).join('\n')}\n`);
        return;
      }
      const branchOf = new Map<string, string[]>();
      for (const [name, id] of Object.entries(branches)) branchOf.set(id, [...(branchOf.get(id) ?? []), name]);
      const header = opts.lineage === undefined && lineage !== undefined ? [`lineage ${lineage} (of ${resolve(opts.workspace as string)})`] : [];
      emit(Boolean(opts.json), { ...(lineage !== undefined ? { lineage } : {}), snapshots: ms, heads, branches }, () =>
        ms.length === 0
          ? `no snapshots${lineage !== undefined ? ` of lineage ${lineage}` : ''} in ${s.root}`
          : [
              ...header,
              ...ms.map(
                (m) =>
                  `${isHead.has(m.id) ? '*' : branchOf.has(m.id) ? 'b' : ' '} ${m.id}  ${m.lineage}  ${m.kind.padEnd(9)}  ${String(m.layers.length).padStart(2)} layer(s)  ${size(stored(m)).padStart(9)}  ${m.createdAt}` +
                  (branchOf.has(m.id) ? `  branch ${branchOf.get(m.id)!.join(', ')}` : ''),
              ),
              ...(Object.keys(branches).length ? ['', '* head   b branch (kept off the head; see `mnemara lineage list`)'] : []),
            ].join('\n'),
      );
    });

  sub('show <id>', 'Show one snapshot (an id, a branch LINEAGE@ROLLOUT or a lineage for its head): lineage, parent, layers with sizes and codec, rollouts.').action(async (ref: string, opts: Opts) => {
    const s = await store(opts);
    const id = await snapshotRef(s, ref);
    const [m, heads] = await Promise.all([s.get(id), s.listHeads()]);
    emit(Boolean(opts.json), m, () => describeManifest(m, heads));
  });

  sub('restore <id> <dir>', 'Restore a snapshot (an id, a branch LINEAGE@ROLLOUT or a lineage for its head) into a directory (staged, then swapped in: all or nothing).')
    .option('-p, --path <path...>', 'restore only these relative paths inside the snapshot, laid over what the directory already holds (e.g. memories sessions)')
    .option('--force', 'replace a directory that is not empty (everything not in the snapshot is removed)')
    .action(async (ref: string, dir: string, opts: Opts & { path?: string[]; force?: boolean }) => {
      const existing = await readdir(dir).catch(() => [] as string[]);
      if (existing.length > 0 && !opts.path && !opts.force) {
        throw new MnemaraError('USAGE', `${dir} is not empty, and a restore replaces its whole content`, {
          hint: 'Pass --force to replace it, --path to restore only some paths into it, or choose a new directory.',
        });
      }
      const s = await store(opts);
      const id = await snapshotRef(s, ref);
      // Ctrl-C (or SIGTERM) stops the restore and removes its staging directory; the target stays as it was.
      // A second one quits at once: the staging directory left then is removed by the next restore into `dir`.
      const controller = new AbortController();
      let interrupts = 0;
      const onSignal = (): void => {
        interrupts += 1;
        if (interrupts > 1) process.exit(EXIT_INTERRUPTED);
        if (!opts.json) process.stderr.write('\ninterrupting: removing the partial restore (Ctrl-C again to quit now)\n');
        controller.abort();
      };
      process.on('SIGINT', onSignal);
      process.on('SIGTERM', onSignal);
      try {
        const paths = opts.path ? await resolveRestorePaths(s, id, opts.path) : undefined;
        const r = await s.restoreToDirectory(id, dir, {
          ...(paths ? { paths } : {}),
          onProgress: progressPrinter(!opts.json),
          signal: controller.signal,
        });
        const { config } = loadCliConfig(opts);
        // The merge base of later hand edits of the memory layout (`snapshot create --kind memory`).
        const unrecorded = !opts.path || opts.path.some((p) => p.replace(/\/+$/, '') === config.memory.layout.memoriesDir) ? await recordRestore(config.home, dir, id, !opts.json) : undefined;
        // What the chain left out when it was taken is not in `dir` either: said, so a restore is not taken for the whole tree.
        const leftOut = opts.path ? [] : await skippedInChain(s, id);
        emit(Boolean(opts.json), { snapshot: id, dir, ...r, leftOut, ...(unrecorded ? { unrecorded } : {}) }, () =>
          [`restored ${id} into ${dir}: ${r.files} entries, ${size(r.bytes)}`, ...leftOutLines(leftOut, dir)].join('\n'),
        );
      } catch (err) {
        if (!controller.signal.aborted) throw err;
        reportError(err, Boolean(opts.json));
        process.exitCode = EXIT_INTERRUPTED;
      } finally {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
      }
    });

  sub('diff <a> <b>', 'Files added, removed and changed from snapshot a to b, with text diffs of the memory layout.').action(
    async (refA: string, refB: string, opts: Opts) => {
      const s = await store(opts);
      const d = await diffSnapshots(s, await snapshotRef(s, refA), await snapshotRef(s, refB), layoutDirs(opts));
      emit(Boolean(opts.json), d, () =>
        [
          ...d.added.map((p) => `A ${listedPath(p)}`),
          ...d.removed.map((p) => `D ${listedPath(p)}`),
          ...d.changed.map((p) => `M ${listedPath(p)}`),
          ...(d.added.length + d.removed.length + d.changed.length === 0 ? ['(no differences)'] : []),
          ...Object.values(d.textDiffs).map((t) => `\n${t.trimEnd()}`),
        ].join('\n'),
      );
    },
  );

  sub('patch [a] [b]', "What a run changed, as a git patch (binary-safe; `git apply` takes it): from snapshot a to b, or with one snapshot from the host directory (-w, default .) to it. The memory layout, .git/ and build caches are left out.")
    .option('-w, --workspace <dir>', 'host directory the patch starts from when only one snapshot is given', '.')
    .action(async (a: string | undefined, b: string | undefined, opts: Opts & { workspace: string }) => {
      if (!a?.trim() || (b !== undefined && !b.trim())) {
        throw new MnemaraError('USAGE', a?.trim() ? 'the second snapshot id is empty' : 'snapshot patch needs a snapshot id, and got none (or an empty one)', {
          hint: '`mnemara snapshot patch SNAPSHOT` (from the host directory -w, default ., to SNAPSHOT) or `mnemara snapshot patch FROM TO`; `mnemara snapshot list` shows the ids.',
        });
      }
      const s = await store(opts);
      const { config } = loadCliConfig(opts);
      const from: PatchSide = b === undefined ? { dir: await existingWorkspaceDir(opts.workspace) } : { snapshot: await snapshotRef(s, a) };
      const to = await snapshotRef(s, b ?? a);
      if ('snapshot' in from) await s.get(from.snapshot);
      await s.get(to);
      const p = await makePatch(s, from, { snapshot: to }, { layoutDirs: layoutDirs(opts), ignore: config.snapshot.ignore });
      // `patch` is the text only when it is the whole patch (valid UTF-8); `patchBase64` is always byte-exact.
      const json = { from: 'dir' in from ? from.dir : from.snapshot, to, added: p.added, removed: p.removed, changed: p.changed, patch: p.bytesAreText ? p.text : null, patchBase64: p.bytes.toString('base64') };
      if (opts.json) emit(true, json, () => '');
      // Bytes, never a decoded string: content and link targets that are not UTF-8 must reach `git apply` as they are.
      else if (p.bytes.length > 0) process.stdout.write(p.bytes);
      else process.stderr.write(`no differences outside the memory layout between ${'dir' in from ? from.dir : from.snapshot} and ${to}\n`);
    });

  sub('verify [id]', 'Check blobs, digests and every entry of one snapshot (an id, a branch LINEAGE@ROLLOUT or a lineage for its head) or all of them; exit 1 if any is damaged.').action(
    async (ref: string | undefined, opts: Opts) => {
      const s = await dirStore(opts, 'verify');
      const results = await verifySnapshots(s, ref === undefined ? undefined : await snapshotRef(s, ref), progressPrinter(!opts.json));
      emit(Boolean(opts.json), { results }, () =>
        results.length === 0 ? 'no snapshots to verify' : [...results.map((r) => (r.ok ? `ok   ${r.id}` : `BAD  ${r.id}: ${r.error}`)), ...(results.some((r) => !r.ok) ? [`hint: ${DAMAGED_HEAD_HINT}`] : [])].join('\n'),
      );
      if (results.some((r) => !r.ok)) process.exitCode = EXIT.failed;
    },
  );

  sub('squash <lineage>', "Fold the lineage head's layer chain into one full layer (a new snapshot; the head moves to it).").action(
    async (lineage: string, opts: Opts) => {
      const r = await squashLineage(await dirStore(opts, 'squash'), lineage, progressPrinter(!opts.json));
      emit(Boolean(opts.json), { snapshot: r.manifest, squashed: r.squashed }, () =>
        r.squashed ? `${lineage} → ${r.manifest.id} (1 full layer, ${size(stored(r.manifest))})` : `${lineage} head ${r.manifest.id} already has one layer`,
      );
    },
  );

  sub('prune', 'Remove all but the newest N snapshots of each lineage (heads and branches are always kept; `mnemara lineage delete` removes a branch; so are the snapshots of sessions that never landed, until `mnemara recover` names them), and blobs no longer used.')
    .requiredOption('--keep <n>', 'snapshots to keep per lineage')
    .option('-l, --lineage <name>', 'only this lineage (default: every lineage of the store)')
    .option('--dry-run', 'remove nothing; list what would be removed and the bytes it would free')
    .action(async (opts: Opts & { keep: string; lineage?: string; dryRun?: boolean }) => {
      const st = await dirStore(opts, 'prune');
      // Orphaned snapshots (a killed or failed session's code, on no head or branch yet) are recover's to name, never prune's.
      const protect = new Map<string, string>();
      for (const o of await findOrphans(st, loadCliConfig(opts).config.home)) {
        for (const s of o.snapshots) protect.set(s.id, `rollout(s) ${s.rolloutIds.join(', ')} of ${o.lineage}, on no head or branch`);
      }
      const r = await pruneSnapshots(st, {
        keep: nonNegativeInt('--keep', opts.keep),
        protect,
        ...(opts.lineage ? { lineage: opts.lineage } : {}),
        ...(opts.dryRun ? { dryRun: true } : {}),
        onProgress: progressPrinter(!opts.json),
      });
      emit(Boolean(opts.json), r, () => describeCleanup(r));
    });

  const copy = async (from: AnyStore, to: AnyStore, lineage: string, json: boolean): Promise<void> => {
    const r = await copyLineage(from, to, lineage, { onProgress: progressPrinter(!json) });
    emit(json, r, () => describeCopy(r, from.root, to.root));
    if (r.headMove === 'diverged') {
      throw new MnemaraError('HEAD_CONFLICT', `lineage ${lineage} has diverged: ${to.root} has head ${r.head}, which is not an ancestor of ${from.root}'s`, {
        hint: 'The snapshots were copied but the head was left alone; continue from one side (mnemara snapshot restore) and copy again.',
      });
    }
  };

  sub('push', 'Copy a lineage from this store to another (only the snapshots and blobs it lacks), then fast-forward its head.')
    .requiredOption('-l, --lineage <name>', 'lineage to copy')
    .requiredOption('--to <store>', 'destination: a directory or s3://BUCKET/PREFIX')
    .action(async (opts: Opts & { lineage: string; to: string }) => {
      const { config } = loadCliConfig(opts);
      const to = await openSnapshotStore(opts.to, config.snapshot, { home: config.home });
      await copy(await store(opts), to, opts.lineage, Boolean(opts.json));
    });

  sub('pull', 'Copy a lineage from another store into this one (only the snapshots and blobs it lacks), then fast-forward its head.')
    .requiredOption('-l, --lineage <name>', 'lineage to copy')
    .requiredOption('--from <store>', 'source: a directory or s3://BUCKET/PREFIX')
    .action(async (opts: Opts & { lineage: string; from: string }) => {
      const { config } = loadCliConfig(opts);
      const from = await openSnapshotStore(opts.from, config.snapshot, { home: config.home });
      await copy(from, await store(opts), opts.lineage, Boolean(opts.json));
    });

  sub('gc', 'Remove leftovers of interrupted writes and blobs no snapshot uses.')
    .option('--grace <seconds>', 'spare anything younger than this (a write may be in progress)', '600')
    .action(async (opts: Opts & { grace: string }) => {
      const r = await collectGarbage(await dirStore(opts, 'gc'), { graceMs: nonNegativeInt('--grace', opts.grace) * 1000, onProgress: progressPrinter(!opts.json) });
      emit(Boolean(opts.json), r, () => describeCleanup(r));
    });
}
