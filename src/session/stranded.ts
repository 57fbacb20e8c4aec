/**
 * Stranded sandboxes (DESIGN.md step 6: nothing is lost). A session killed (SIGKILL, a power cut) before its
 * workspace snapshot leaves the agent's work only in its still-running container. Every mnemara container is
 * labelled with its session's rollout id (`mnemara.session`) and the `<host>:<pid>` of the process that started
 * it (`mnemara.process`); the session record (`orphans.ts`) says which lineage the rollout belongs to.
 *
 * A container whose process is gone on this host is *stranded* when its rollout has a session record, its restore
 * ended, and no workspace snapshot of the lineage is the rollout's own (`savedWorkspaces`): the session was killed
 * before its workspace snapshot, or that snapshot failed and the container was kept for rescue. A killed session
 * whose workspace snapshot exists (killed during publish or later) holds no unsaved work: `savedIn` names that
 * snapshot, recover removes the container and `doctor` says so. One rule for both, so they never disagree; a
 * memory snapshot that lists the rollout (its transcript adopted while the rescue failed) does not save its code.
 * Rescue snapshots its /workspace (the memory
 * layout redacted first, as a session does) as a workspace snapshot of the lineage holding that rollout, which
 * adoption then names as the branch `LINEAGE@<rollout-id>`, and removes the container and its loop device. A
 * container of a gone process without a session record (`run --keep-sandbox` after its rollout landed) is a
 * *leftover*: listed by `mnemara doctor`, removed by `mnemara sandbox prune`.
 *
 * Only the containers of this mnemara home are looked at (`mnemara.home`, `sandbox/docker/home-label.ts`):
 * another home's killed session is that home's to recover. A container without the home label (an older
 * mnemara) is this home's when this home holds the session record of its rollout (rollout ids are unique);
 * without one it is listed as `unowned`, never rescued nor counted as this home's leftover.
 */
import { hostname } from 'node:os';
import { dockerClient, LABEL } from '../sandbox/index.js';
import { DockerSandbox } from '../sandbox/docker/docker-sandbox.js';
import { ownerAlive } from '../sandbox/docker/prune.js';
import { ownershipOf } from '../sandbox/docker/home-label.js';
import { detachOrphanDisks } from '../sandbox/docker/workspace-disk.js';
import { explicitStore, ioFailureCode, ioFailureError } from '../config/io-errors.js';
import { logger } from '../config/logger.js';
import type { MemoryLayout } from '../config/memory.js';
import type { OnProgress } from '../config/progress.js';
import type { SnapshotStore } from '../snapshot/types.js';
import type { DirectoryStore } from '../snapshot/store/dir-store.js';
import { endSessionRecord, otherStoreOf, readSessionRecord } from './orphans.js';
import { inHostCheckout, type WasThere } from './credential-files.js';
import { prepareWorkspace } from './prepare-snapshot.js';
import { snapshotSandbox } from './snapshot-sandbox.js';
import { tryClaim } from './claim.js';

const log = logger('session.stranded');

/** A mnemara container whose starting process no longer runs on this host. */
export interface GoneSandbox {
  containerId: string;
  name: string;
  /** The rollout id of its session (`mnemara.session`). */
  rolloutId: string;
  /** Docker's state: running, exited, created … */
  state: string;
  /** The session's lineage, from its session record; `null` without a record (a leftover). */
  lineage: string | null;
  /** Whether it holds a session's work to rescue (see the module comment); else it is a leftover. */
  stranded: boolean;
  /** Its session was killed (the record was never ended): recover deals with it, saved or not. */
  killed: boolean;
  /** The rollout's own workspace snapshot, when one exists: the container's work is saved there. */
  savedIn: string | null;
  /** No home label and no session record here: made by an older mnemara, maybe for another home (module comment). */
  unowned: boolean;
  /** Its session died before the restore ended (the agent never ran): nothing in it to rescue; recover drops it. */
  unrestored: boolean;
  /** The snapshot its session started from (`SessionRecord.start`); `null`: a fresh copy, or not recorded. */
  start: string | null;
  /** What a rescue needs to tell the run's files from the user's (`SessionRecord`): the host checkout of a fresh copy, the run's clock and its start (ISO). */
  record?: { workspace?: string; runClock?: number; startedAt: string };
  /** Its session wrote to this other store (`SessionRecord.store`): it is rescued there, with `recover --store`, not into the open one. */
  otherStore?: string;
}

/**
 * Lists the mnemara containers of `home` whose process is gone on this host (another host's and another home's
 * are never listed), with their lineage and whether they are stranded or unowned (module comment). `[]` when no
 * engine answers (logged at debug level).
 */
export async function findGoneSandboxes(store: SnapshotStore, home: string, lineage?: string): Promise<GoneSandbox[]> {
  const docker = dockerClient();
  const containers = await docker.listContainers({ all: true, filters: { label: [`${LABEL.owner}=1`] } }).catch((err: unknown) => {
    log.debug({ err: (err as Error).message }, 'no engine: no stranded sandboxes looked for');
    return [];
  });
  const host = hostname();
  const out: GoneSandbox[] = [];
  const saved = new Map<string, Map<string, string>>();
  for (const c of containers) {
    const owner = c.Labels[LABEL.process] ?? '';
    if (owner.slice(0, owner.lastIndexOf(':')) !== host || ownerAlive(owner)) continue;
    const whose = ownershipOf(c.Labels, home);
    if (whose === 'other') continue;
    const rolloutId = c.Labels[LABEL.session] ?? '';
    const record = rolloutId ? await readSessionRecord(home, rolloutId) : null;
    if (lineage !== undefined && record?.lineage !== lineage) continue;
    const otherStore = otherStoreOf(record, store.root);
    const unowned = whose === 'unlabelled' && !record;
    const unrestored = record?.restore === 'pending' && !record.endedAt;
    let savedIn: string | null = null;
    if (record && otherStore === null) {
      let own = saved.get(record.lineage);
      if (!own) saved.set(record.lineage, (own = await savedWorkspaces(store, record.lineage)));
      savedIn = own.get(rolloutId) ?? null;
    }
    const stranded = record !== null && !unrestored && savedIn === null;
    const killed = record !== null && !record.endedAt;
    out.push({ containerId: c.Id, name: (c.Names[0] ?? c.Id).replace(/^\//, ''), rolloutId, state: c.State, lineage: record?.lineage ?? null, stranded, killed, savedIn, unowned, unrestored, start: record?.start ?? null, ...(record ? { record: { startedAt: record.startedAt, ...(record.workspace !== undefined ? { workspace: record.workspace } : {}), ...(record.runClock !== undefined ? { runClock: record.runClock } : {}) } } : {}), ...(otherStore !== null ? { otherStore } : {}) });
  }
  return out;
}

/** Whether a sandbox container of session `rolloutId` exists on the engine (any state). Throws when the engine cannot be asked. */
export async function sessionHasSandbox(rolloutId: string): Promise<boolean> {
  const found = await dockerClient().listContainers({ all: true, filters: { label: [`${LABEL.session}=${rolloutId}`] } });
  return found.length > 0;
}

/**
 * Rollout id → its own workspace snapshot, for `lineage`: the workspace snapshots whose last rollout is the one
 * that made them (a session's step 6 and a rescue both list the parent's rollouts, then their own). Whether a gone
 * sandbox still holds unsaved work is decided here alone, for `doctor`, `recover` and `sandbox prune`.
 */
export async function savedWorkspaces(store: Pick<SnapshotStore, 'list'>, lineage: string): Promise<Map<string, string>> {
  const own = new Map<string, string>();
  for (const m of await store.list({ lineage })) {
    const r = m.kind === 'workspace' ? m.rolloutIds.at(-1) : undefined;
    if (r !== undefined && !own.has(r)) own.set(r, m.id);
  }
  return own;
}

/** What `rescueStrandedSandboxes` did with one stranded container. */
export interface Rescue {
  rolloutId: string;
  lineage: string;
  container: string;
  /** The workspace snapshot taken of it; `null` when a snapshot already held the rollout (`savedIn`). */
  snapshot: string | null;
  /** The rollout's own workspace snapshot that already held the container's work (nothing was taken). */
  savedIn?: string;
  /** Why it could not be rescued (the container is then left as it was). */
  error?: string;
  /** It was removed without a snapshot: its session died before the restore ended, so it held no work. */
  dropped?: boolean;
  /** With `error`: the container was removed meanwhile, before its work was saved (nothing left to copy out). */
  gone?: boolean;
  /** Left to another process that is rescuing it now (why, with its pid): nothing done here, not a failure. */
  skipped?: string;
  /** With `skipped`: its session wrote to this other store, where `recover --store` rescues it (its work is still only in the container). */
  otherStore?: string;
}

/**
 * Rescues the stranded sandboxes of `lineage` (every lineage when omitted): snapshots each one's /workspace as a
 * workspace snapshot of its lineage holding its rollout (unless a snapshot of the lineage already holds it),
 * then removes the container and detaches its loop device. The caller adopts the snapshots (`adoptOrphans`) and
 * the transcripts (the session record, never ended, marks them orphaned). Never throws: a container that cannot
 * be rescued is reported with the reason and left running for the next try.
 */
export async function rescueStrandedSandboxes(store: SnapshotStore, home: string, layout: MemoryLayout, lineage?: string, onProgress?: OnProgress): Promise<Rescue[]> {
  const gone = await findGoneSandboxes(store, home, lineage).catch((err: unknown) => {
    log.warn({ err: (err as Error).message }, 'could not look for stranded sandboxes');
    return [];
  });
  const rescues: Rescue[] = [];
  // The dropped ones first (as before): a half-restored /workspace is no one's work.
  const todo = [...gone.filter((x) => x.unrestored && x.lineage !== null), ...gone.filter((x) => x.lineage !== null && !x.unrestored && (x.stranded || (x.killed && x.savedIn !== null)))];
  for (const listed of todo) {
    if (listed.otherStore !== undefined) {
      rescues.push({ rolloutId: listed.rolloutId, lineage: listed.lineage as string, container: listed.name, snapshot: null, otherStore: listed.otherStore, skipped: `its session wrote to the store ${listed.otherStore}, so it is rescued there: \`mnemara recover --store ${listed.otherStore}\`` });
      continue;
    }
    // One rescuer per container: two recovers at once each snapshotted it (issue 10 trial). A claim that cannot
    // be written (a full disk) leaves the rescue unclaimed, as before, rather than never done.
    const claim = await tryClaim(home, `rescue-${listed.rolloutId}`).catch(() => null);
    if (claim && !('release' in claim)) {
      rescues.push({ rolloutId: listed.rolloutId, lineage: listed.lineage as string, container: listed.name, snapshot: null, skipped: `another mnemara process (pid ${claim.heldBy}) is rescuing it` });
      continue;
    }
    try {
      // Read again under the claim: another process may have rescued it between the listing and the claim.
      const g = (await findGoneSandboxes(store, home, listed.lineage as string)).find((x) => x.containerId === listed.containerId);
      if (!g) continue; // removed meanwhile: someone else's rescue, reported there
      if (g.unrestored) rescues.push(await dropUnrestored(g, home, onProgress));
      else if (g.stranded || (g.killed && g.savedIn !== null)) rescues.push(await rescueOne(g, store, home, layout, onProgress));
    } finally {
      if (claim) await claim.release();
    }
  }
  const removed = rescues.filter((r) => !r.error && !r.skipped).map((r) => r.container);
  if (removed.length) await detachOrphanDisks(new Set(), new Set(removed), home);
  return rescues;
}

/** Removes a sandbox whose session died before its restore ended (it holds no work) and ends its record. */
async function dropUnrestored(g: GoneSandbox, home: string, onProgress?: OnProgress): Promise<Rescue> {
  const rescue: Rescue = { rolloutId: g.rolloutId, lineage: g.lineage as string, container: g.name, snapshot: null, dropped: true };
  try {
    await (await DockerSandbox.attach(g.containerId)).close();
    await endSessionRecord(home, g.rolloutId, false);
    onProgress?.({ step: 'recover', phase: 'progress', message: `sandbox ${g.name} (rollout ${g.rolloutId}) never finished its restore: no work to rescue; removed` });
  } catch (err) {
    rescue.error = (err as Error).message;
  }
  return rescue;
}

/**
 * Snapshots a stranded sandbox's /workspace (not one whose work a snapshot already holds) and removes it. Never
 * throws: a failure is the rescue's `error`, with what to do on a full disk.
 */
async function rescueOne(g: GoneSandbox, store: SnapshotStore, home: string, layout: MemoryLayout, onProgress?: OnProgress): Promise<Rescue> {
  const rescue: Rescue = { rolloutId: g.rolloutId, lineage: g.lineage as string, container: g.name, snapshot: null, ...(g.savedIn ? { savedIn: g.savedIn } : {}) };
  try {
    const sandbox = await DockerSandbox.attach(g.containerId);
    if (g.stranded) {
      onProgress?.({ step: 'recover', phase: 'progress', message: `snapshotting the workspace of stranded sandbox ${g.name} (rollout ${g.rolloutId})` });
      // On the snapshot it started from, as its session would have: its notes and MEMORY.md edits then merge
      // three-way, not as conflicts (`orphan-notes.ts`). A start the store no longer has leaves it without one.
      const parent = g.start ? await store.get(g.start).catch(() => null) : null;
      // The session's own step 6: leftover processes stopped, notes redacted, and the credential and token files
      // the run wrote set aside (a rescue snapshotted a `.env` with a live key the session would have left out:
      // trial 23 F13).
      const prepared = await prepareWorkspace(sandbox, {
        home,
        rolloutId: g.rolloutId,
        layout,
        runClock: rescueClock(g),
        wasThere: await wasThereAtStart(g, parent ? store : null),
        keep: false,
        ...(onProgress ? { onProgress } : {}),
      });
      const rolloutIds = [...new Set([...(parent?.rolloutIds ?? []), g.rolloutId])];
      const skipped = prepared.skipped;
      // A fresh or --memory-from start (its record names the host checkout) worked on that checkout, not on `parent`.
      const fromHost = g.record?.workspace !== undefined ? { workspaceFrom: 'host' as const } : {};
      const m = await snapshotSandbox(sandbox, store, { lineage: rescue.lineage, kind: 'workspace', parent: parent?.id ?? null, rolloutIds, ...(skipped.length ? { skipped } : {}), ...(onProgress ? { onProgress } : {}), ...fromHost });
      rescue.snapshot = m.id;
    }
    await sandbox.close();
    log.info({ ...rescue }, 'rescued the workspace of a sandbox whose session is gone');
  } catch (err) {
    // Removed under us (a rescuer that took no claim: an older mnemara, `sandbox prune --force`): what is gone is
    // not this recover's failure; saved meanwhile, it was recovered (the loser failed with "/workspace does not
    // exist in the sandbox" and exit 3, naming a container that was gone, issue 10 trial).
    if (!(await containerExists(g.containerId))) {
      const savedIn = (await savedWorkspaces(store, rescue.lineage).catch(() => new Map<string, string>())).get(g.rolloutId);
      if (savedIn) return { ...rescue, snapshot: null, savedIn, skipped: `its container was removed meanwhile by another process, which saved its work in ${savedIn}` };
      rescue.gone = true;
    }
    // A full disk says so, and what to do, as a session's workspace snapshot does.
    rescue.error = ioFailureCode(err) ? ((e) => `${e.message} ${e.hint ?? ''}`.trim())(ioFailureError(err, `snapshotting the workspace of sandbox ${g.name}`, { home, ...explicitStore(home, store.root), command: 'recover' })) : (err as Error).message;
    log.warn({ ...rescue }, rescue.gone ? 'a stranded sandbox was removed before its work was saved' : 'could not rescue a stranded sandbox; it is left running');
  }
  return rescue;
}

/**
 * The clock from which a rescue counts files as the run's (sandbox seconds): the one the session recorded when its
 * agent started, else its start time less a minute (the sandbox shares the host's clock), so what the restore
 * wrote is looked at too and told apart by `wasThereAtStart`.
 */
function rescueClock(g: GoneSandbox): number | null {
  if (g.record?.runClock !== undefined) return g.record.runClock;
  const started = g.record ? Date.parse(g.record.startedAt) : Number.NaN;
  return Number.isFinite(started) ? started / 1000 - 60 : null;
}

/**
 * Whether a path was in the workspace before the run: in the start snapshot's tree, or in the host checkout a
 * fresh copy was made from; `'unknown'` (such a file is kept, and named) when the session recorded neither.
 */
async function wasThereAtStart(g: GoneSandbox, store: SnapshotStore | null): Promise<WasThere> {
  const treeOf = (store as Partial<Pick<DirectoryStore, 'tree'>> | null)?.tree?.bind(store);
  if (g.start && treeOf) {
    const tree = await treeOf(g.start).catch(() => null);
    if (tree) {
      const paths = new Set<string>();
      for (const { path } of tree.walk()) paths.add(path);
      return (rel) => paths.has(rel);
    }
  }
  if (g.record?.workspace) return inHostCheckout(g.record.workspace);
  return () => 'unknown';
}

/** Whether container `id` still exists; `true` when the engine cannot be asked (nothing is claimed gone then). */
async function containerExists(id: string): Promise<boolean> {
  return dockerClient().getContainer(id).inspect().then(
    () => true,
    (err: { statusCode?: number }) => err.statusCode !== 404,
  );
}
