import type { Command } from 'commander';
import { MnemaraError } from '../../config/errors.js';
import { defaultStoreDir } from '../../config/paths.js';
import type { SnapshotStore } from '../../snapshot/types.js';
import type { MnemaraConfig } from '../../config/schema.js';
import { findOrphans, removeDeadScratch } from '../../session/orphans.js';
import { findGoneSandboxes, rescueStrandedSandboxes, type GoneSandbox, type Rescue } from '../../session/stranded.js';
import { findPendingOnHeads } from '../../session/pending.js';
import { recoverLineage, type RecoverResult } from '../../session/recover.js';
import { isS3Store, openStore } from '../../snapshot/index.js';
import { removeDeadWriterTemps, type DeadTemp } from '../../snapshot/temp-leftovers.js';
import { detachGoneSandboxDisks } from '../../sandbox/docker/gone-disks.js';
import { waitClaim } from '../../session/claim.js';
import { EXIT, emit, formatBytes, progressPrinter } from '../output.js';
import { addConfigOptions, loadCliConfig, storeFlags, type ConfigCliOptions } from './config.js';
import { snapshotConfigKeepingLayout } from '../../memory/layout.js';

/** How long (s) a recover waits for another one on the same home: a rescue of a big container takes minutes. */
const DEFAULT_WAIT_S = 900;

/**
 * `--lineage NAME` that names nothing this home knows (no head, no orphaned rollout, no sandbox of a gone session):
 * the user's input, exit 2, as every other command treats an unknown lineage.
 */
async function assertKnownLineage(store: SnapshotStore, home: string, lineage: string): Promise<void> {
  if (await store.getHead(lineage)) return;
  if ((await findOrphans(store, home, lineage)).length) return;
  if ((await findGoneSandboxes(store, home, lineage)).length) return;
  throw new MnemaraError('NOT_FOUND', `lineage ${lineage} does not exist: it has no head, no orphaned rollout and no sandbox left behind`, {
    hint: 'Run `mnemara lineage list` to see the lineages, or `mnemara recover` without --lineage for all of them.',
  });
}

/** What removes a sandbox of a gone process that no session record names (`recover --dry-run`). */
function unownedFix(g: GoneSandbox): string {
  return g.unowned
    ? 'it has no home label (an older mnemara, perhaps for another home): once no other home needs it, `mnemara sandbox prune --include-unlabelled` removes it'
    : '`mnemara sandbox prune` removes it';
}

/** Registers `mnemara recover`: adopts orphaned rollouts (crashed or failed sessions) into their lineages' memory. */
export function registerRecoverCommand(program: Command): void {
  const cmd = program
    .command('recover')
    .summary('bring rollouts of crashed or failed sessions into their lineage memory')
    .description(
      'Find rollouts that reached no lineage head (the session was killed, the disk filled, the head kept moving): ' +
        'their transcripts under <home>/transcripts/ and their workspace snapshots. The transcripts are extracted and ' +
        'consolidated into the lineage memory, the head moves (compare-and-swap), and each orphaned snapshot is ' +
        'named as a branch LINEAGE@<rollout-id>. A sandbox container left running by a killed session is snapshotted ' +
        'first (its /workspace becomes such a branch) and removed. The next run on a lineage does the same for it. ' +
        'See docs/session.md.',
    )
    .option('-l, --lineage <name>', "only this lineage's rollouts and sandboxes (temp files of dead writers and loop devices of gone sandboxes belong to no lineage: they are cleaned home-wide)")
    .option('--dry-run', 'only list what would be adopted, and sandboxes of gone processes that no session record names (--json: orphans, stranded, unowned)')
    .option('--wait <seconds>', `how long to wait for another recover on this home to finish before giving up (exit 3, CLAIM_BUSY)`, String(DEFAULT_WAIT_S))
    .option('--json', 'print the result as one JSON document');
  addConfigOptions(cmd).action(async (opts: ConfigCliOptions & { lineage?: string; dryRun?: boolean; json?: boolean; wait?: string }) => {
    const json = Boolean(opts.json);
    const { config } = loadCliConfig(opts);
    const storeFlag = storeFlags(opts);
    const store = await openStore(config.snapshot.store ?? defaultStoreDir(), snapshotConfigKeepingLayout(config));
    if (opts.lineage !== undefined) await assertKnownLineage(store, config.home, opts.lineage);
    if (opts.dryRun) {
      const orphans = await findOrphans(store, config.home, opts.lineage);
      const gone = await findGoneSandboxes(store, config.home, opts.lineage);
      const stranded = gone.filter((g) => g.stranded);
      // Sandboxes whose process is gone and that no session record names: nothing to rescue, but said, with what removes them.
      const unowned = gone.filter((g) => g.lineage === null).map((g) => ({ ...g, fix: unownedFix(g) }));
      emit(json, { orphans, stranded, unowned }, () =>
        orphans.length + stranded.length + unowned.length === 0
          ? 'nothing orphaned'
          : [
              ...stranded.map((g) => `${g.lineage}\n  sandbox    ${g.name}  (${g.state}) holds the work of ${g.rolloutId}`),
              ...(unowned.length ? ['(no session record)', ...unowned.map((g) => `  sandbox    ${g.name}  (${g.state}) of rollout ${g.rolloutId || '?'}: its process is gone and no session record names it, so there is nothing to rescue; ${g.fix}`)] : []),
              ...orphans.map((o) => [`${o.lineage}`, ...o.transcripts.map((t) => `  transcript ${t.rolloutId}  ${t.path}`), ...o.snapshots.map((s) => `  snapshot   ${s.id}  holds ${s.rolloutIds.join(', ')}`)].join('\n')),
            ].join('\n'),
      );
      return;
    }
    // One recover at a time per home: a second one waits, then finds what the first left (two at once each
    // snapshotted a killed session's container, issue 10 trial).
    const waitS = opts.wait === undefined ? DEFAULT_WAIT_S : Number(opts.wait);
    if (!Number.isFinite(waitS) || waitS < 0) throw new MnemaraError('USAGE', `--wait ${opts.wait}: expected a number of seconds ≥ 0`, { hint: `e.g. --wait ${DEFAULT_WAIT_S}` });
    const claim = await waitClaim(
      config.home,
      'recover',
      (pid) => {
        if (!json) process.stderr.write(`waiting for another mnemara recover (pid ${pid}) to finish (up to ${waitS} s, --wait)…\n`);
      },
      waitS * 1000,
    );
    let results: RecoverResult[];
    let rescued: Rescue[];
    let tempFiles: DeadTemp[];
    let detached: string[];
    try {
      ({ results, rescued } = await recoverAll(store, config, opts.lineage, json));
      // Partial blobs of writers that are gone (a create, session or recover killed mid-snapshot): never a live one's.
      tempFiles = isS3Store(store) ? [] : await removeDeadWriterTemps(store.tmpDir);
      // Loop devices of sandboxes whose container is gone (a session killed between removing it and detaching).
      detached = await detachGoneSandboxDisks(config.home);
    } finally {
      await claim.release();
    }
    const failed = rescued.filter((r) => r.error);
    // A rescued snapshot that adoption did not name held nothing the head lacks (trial 21 F8: said as if a branch held it).
    const branchOf = (snapshot: string): string | undefined => results.flatMap((r) => r.branches).find((b) => b.snapshot === snapshot)?.name;
    const tempBytes = tempFiles.reduce((n, t) => n + t.bytes, 0);
    const cleaned = [
      ...(tempFiles.length ? [`removed ${tempFiles.length} temp file(s) of snapshot writes that were killed (${formatBytes(tempBytes)}): ${tempFiles.map((t) => `tmp/${t.name}`).join(', ')}`] : []),
      ...(detached.length ? [`detached ${detached.length} loop device(s) of sandboxes that are gone: ${detached.join(', ')}`] : []),
    ];
    // The hints go into --json too: a script has no other way to learn why rollouts stay pending (trial 21).
    const hints = unreachableModelHint(results, config).map((h) => h.replace(/^hint: /, ''));
    emit(json, { results, rescued, tempFiles: { removed: tempFiles.map((t) => `tmp/${t.name}`), bytes: tempBytes }, detached, hints }, () =>
      results.length === 0 && rescued.length === 0
        ? [cleaned.length ? 'no rollout orphaned' : 'nothing orphaned', ...cleaned].join('\n')
        : results
            .map((r) =>
              [
                `${r.lineage}: adopted ${r.adopted.length} rollout(s)${r.head ? `; head → ${r.head}` : ''}`,
                ...r.adopted.map((id) => `  + ${id}${r.pending.includes(id) ? ` (extraction failed: stays pending: ${r.pendingErrors?.[id] ?? 'no reason given'})` : ''}`),
                ...(r.extracted ?? []).map((id) => `  extracted ${id} (it was on the head, pending)${r.pending.includes(id) ? `: extraction failed, stays pending (${r.pendingErrors?.[id] ?? 'no reason given'})` : ''}`),
                ...r.pending.filter((id) => !r.adopted.includes(id) && !(r.extracted ?? []).includes(id)).map((id) => `  pending ${id}: ${r.pendingErrors?.[id] ?? 'not extracted'}`),
                ...r.branches.map((b) => `  branch ${b.name} → ${b.snapshot}`),
                ...r.notes.map((n) => `  note ${n} (the agent's memory note, now on the head)`),
                ...r.waiting.map((id) => `  waiting ${id} (for the lineage's first session)`),
                ...(r.note ? [`  note: ${r.note}`] : []),
              ].join('\n'),
            )
            .concat(rescued.map((r) => (r.skipped ? `sandbox ${r.container} of ${r.rolloutId} (${r.lineage}): ${r.skipped}` : r.error ? `sandbox ${r.container} of ${r.rolloutId} (${r.lineage}): NOT rescued: ${r.error}${r.gone ? ' (its container was removed meanwhile, before its work was saved: nothing is left to rescue)' : `\n  ${notRescuedHint(r.container, storeFlag)}`}` : r.dropped ? `sandbox ${r.container} of ${r.rolloutId} (${r.lineage}): its session was killed before the restore ended, so it held no work; removed (no branch)` : `sandbox ${r.container} of ${r.rolloutId} (${r.lineage}): ${r.snapshot ? `workspace snapshot ${r.snapshot}${branchOf(r.snapshot) ? ` (branch ${branchOf(r.snapshot)})` : ', no changes the head does not already hold (no branch needed; `snapshot prune` may remove it)'}` : `already snapshotted${r.savedIn ? ` (workspace snapshot ${r.savedIn})` : ''}`}; removed`)))
            .concat(cleaned)
            .concat(hints.map((h) => `hint: ${h}`))
            .join('\n'),
    );
    if (failed.length) process.exitCode = EXIT.internal;
    // Work left in a container for another store's recover is not recovered yet: a script must not read "done".
    else if (rescued.some((r) => r.otherStore !== undefined)) process.exitCode = EXIT.failed;
  });
}

/** An error of the SDK or the network that says the endpoint was not reached (not a refusal by it). */
const UNREACHED = /connection error|ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|fetch failed|socket hang up|timed? ?out/i;

/**
 * The way out when extractions failed because the memory model could not be reached (trial 21 F10: "Connection
 * error." alone, with neither the endpoint nor what to do): the endpoint, and the deterministic extractor.
 */
export function unreachableModelHint(results: Array<{ pendingErrors?: Record<string, string> }>, config: MnemaraConfig): string[] {
  const n = results.flatMap((r) => Object.values(r.pendingErrors ?? {})).filter((e) => UNREACHED.test(e)).length;
  if (n === 0) return [];
  const endpoint = process.env.ANTHROPIC_BASE_URL ?? 'https://api.anthropic.com';
  return [
    `hint: ${n} extraction(s) could not reach the memory model at ${endpoint} (model ${config.memory.model ?? config.agent.model}); the rollouts stay pending, nothing is lost. ` +
      'Run `mnemara recover --set memory.extractor=deterministic` to extract them without a model, or again once the endpoint answers.',
  ];
}

/**
 * What a user can still do when a sandbox could not be saved (a full home, most often): the sandbox is kept, its
 * work is in /workspace, and on a full home the space is held by the sandbox's own workspace disk image (unlinked
 * under `<home>/sandbox-disks` while in use, so `du` does not show it) until the sandbox is removed. `storeFlag`: the
 * flags that chose the home and store (`storeFlags`), so that the recover it names looks where this one did.
 */
export function notRescuedHint(container: string, storeFlag: string): string {
  return `The sandbox is kept with its work in /workspace: copy it out to another filesystem with \`docker cp ${container}:/workspace DIR\`, then \`mnemara sandbox prune --force\` frees the space its workspace disk holds (invisible to du while the sandbox exists). Or free space and run \`mnemara recover${storeFlag}\` again.`;
}

/** Rescues, then recovers every lineage with orphans or pending rollouts (`lineage` only, when given). */
async function recoverAll(store: SnapshotStore, config: MnemaraConfig, lineage: string | undefined, json: boolean): Promise<{ results: RecoverResult[]; rescued: Rescue[] }> {
  // Scratch directories of sessions that are gone (killed after their head move, too): as the next session does.
  await removeDeadScratch(config.home);
  // Rescued first: a stranded sandbox's lineage may have nothing else orphaned until its work is a snapshot.
  const rescued: Rescue[] = await rescueStrandedSandboxes(store, config.home, config.memory.layout, lineage, progressPrinter(!json));
  const orphans = await findOrphans(store, config.home, lineage);
  const pending = await findPendingOnHeads(store, config.memory.layout, lineage);
  const lineages = [...new Set([...orphans.map((o) => o.lineage), ...pending.map((p) => p.lineage)])].sort();
  const results: RecoverResult[] = [];
  // Each lineage's rescues were tried just above: not again (a failed one warned twice).
  for (const l of lineages) {
    results.push(await recoverLineage(store, config, l, progressPrinter(!json), { rescued: rescued.filter((r) => r.lineage === l) }));
  }
  return { results, rescued };
}

