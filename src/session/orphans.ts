/**
 * Orphaned rollouts (DESIGN.md step 6: nothing is lost). A session that was killed, or ran out of disk, before
 * its rollout reached a head leaves behind its host transcript (`<home>/transcripts/<rollout-id>.jsonl`) and,
 * once step 6 ran, a workspace snapshot on no head. The next session on the lineage, `mnemara recover` and
 * `mnemara doctor` find them here; adoption puts the transcripts into the memory pipeline and names the
 * snapshots as branches, so that their code is listed and never pruned.
 *
 * Which lineage a transcript belongs to is recorded when the session starts, in a session record beside it
 * (`<rollout-id>.session.json`: rollout id, lineage, pid, host, start time); the pid tells a live session (whose
 * rollout is simply not published yet) from a dead one.
 */
import { readFileSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';
import { dropLayoutLinks } from '../memory/layout-links.js';
import { logger } from '../config/logger.js';
import { MemoryLayoutSchema, type MemoryLayout } from '../config/memory.js';
import type { AgentMemoryEdits } from '../memory/phase2/agent-proposals.js';
import type { Manifest, SnapshotStore } from '../snapshot/types.js';
import { codeOnHead } from './code-contained.js';
import { adoptOrphanNotes } from './orphan-notes.js';
import { sessionBranch } from './publish.js';
import { otherStoreOf, recordPath, writeSessionRecord, type SessionRecord } from './session-record.js';

// The record's lifecycle lives in session-record.ts; these stay importable from here, where adoption reads them.
export { endSessionRecord, markSessionRestored, otherStoreOf, readSessionRecord, recordRunClock, recordSessionStart, writeSessionRecord, type SessionRecord } from './session-record.js';

const log = logger('session.orphans');
const HOST = hostname();

/** What is orphaned on one lineage: transcripts on no head, and snapshots holding rollouts on no head. */
export interface Orphans {
  lineage: string;
  /** Rollouts whose transcript is on the host and on no head, with the host transcript's path. */
  transcripts: { rolloutId: string; path: string }[];
  /**
   * Snapshots of the lineage that no head or branch names and that hold rollouts no head holds, or the code of a
   * session that never landed (its workspace snapshot, in no named snapshot's layer chain).
   */
  snapshots: { id: string; rolloutIds: string[] }[];
}


/**
 * The scratch directory of a starting session under `<home>/tmp`, named with the process id so that a later
 * session can remove it if this process dies (`removeDeadScratch`), and the session's record. Returns the directory.
 */
export async function openSessionScratch(home: string, rolloutId: string, lineage: string, store?: string): Promise<string> {
  await mkdir(join(home, 'tmp'), { recursive: true });
  const dir = await mkdtemp(join(home, 'tmp', `session-${rolloutId}-p${process.pid}-`));
  await writeSessionRecord(home, rolloutId, lineage, store);
  return dir;
}

/** Whether process `pid` on this host still runs (a zombie counts as gone: it will never write again). */
export function processAlive(pid: number, host: string = HOST): boolean {
  if (host !== HOST) return true; // another machine's session: assume it lives, never adopt under its feet
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  // /proc/<pid>/stat is "pid (comm) S ...": the state letter follows the last ')'. A zombie is gone.
  const text = readProcStat(pid);
  return text === null || !/\)\s+Z/.test(text);
}

function readProcStat(pid: number): string | null {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
}

async function readRecords(home: string): Promise<SessionRecord[]> {
  const dir = join(home, 'transcripts');
  const names = await readdir(dir).catch(() => [] as string[]);
  const out: SessionRecord[] = [];
  for (const name of names.filter((n) => n.endsWith('.session.json'))) {
    try {
      const r = JSON.parse(await readFile(join(dir, name), 'utf8')) as SessionRecord;
      if (typeof r.rolloutId === 'string' && typeof r.lineage === 'string' && `${r.rolloutId}.session.json` === name) out.push(r);
    } catch {
      // A record cut short by a crash: its rollout is found through its snapshot, if it has one.
    }
  }
  return out;
}

/** Every rollout id some head or `@reset-` branch holds (the union of their manifests' `rolloutIds`). */
async function rolloutsOnHeads(store: SnapshotStore): Promise<Set<string>> {
  const on = new Set<string>();
  // A `lineage reset` sets the old head's history aside on purpose, on its `@reset-` branch: its rollouts are
  // accounted for there, not orphans (thirteenth trial F13: the next recover brought the dropped lessons back).
  const reset = Object.entries(await store.listBranches().catch(() => ({}) as Record<string, string>)).filter(([name]) => name.includes('@reset-')).map(([, id]) => id);
  for (const id of new Set([...Object.values(await store.listHeads()), ...reset])) {
    const m = await store.get(id).catch(() => null);
    for (const r of m?.rolloutIds ?? []) on.add(r);
  }
  return on;
}

/**
 * Whether a snapshot's code is kept by a named snapshot (`named`: heads and branches): a manifest lists its whole
 * layer chain, so a snapshot whose layers begin some named snapshot's layers is restored within it.
 */
async function keptChains(store: SnapshotStore, named: Set<string>): Promise<(m: Manifest) => boolean> {
  const chains: string[][] = [];
  for (const id of named) {
    const n = await store.get(id).catch(() => null);
    if (n) chains.push(n.layers.map((l) => l.digest));
  }
  return (m) => chains.some((c) => c.length >= m.layers.length && m.layers.every((l, i) => c[i] === l.digest));
}

/** The memory layout's directories, which are not code (`codeOnHead`). */
const layoutDirsOf = (layout: MemoryLayout): string[] => [layout.memoriesDir, layout.sessionsDir];
const DEFAULT_LAYOUT_DIRS = layoutDirsOf(MemoryLayoutSchema.parse({}));

/**
 * Whether the code of workspace snapshot `m` is already on its lineage's head (`codeOnHead`: everything its
 * session changed outside the memory layout `layoutDirs`, the head has as it). Such a snapshot needs no branch:
 * one that ran out of disk during publish, or lost the race to a session that made the same change.
 */
async function codeHeld(store: SnapshotStore, m: Manifest, layoutDirs: string[]): Promise<boolean> {
  const head = await store.getHead(m.lineage).catch(() => null);
  return head !== null && (await codeOnHead(store, m.id, head, layoutDirs));
}

/**
 * Finds the orphans of `lineage` (every lineage when omitted): host transcripts of dead sessions whose rollout
 * is on no head, and snapshots of the lineage holding such rollouts that no head or branch names, or the code
 * of a session that never landed that its head does not hold (its layout's directories `layoutDirs` aside).
 * `except` is the caller's own rollout (live, not an orphan). Reads manifests and small files, and the tree
 * indexes of a never-landed session's workspace snapshot, its parent and the head.
 */
export async function findOrphans(store: SnapshotStore, home: string, lineage?: string, except?: string, layoutDirs: string[] = DEFAULT_LAYOUT_DIRS): Promise<Orphans[]> {
  const onHeads = await rolloutsOnHeads(store);
  const records = await readRecords(home);
  const live = new Set(records.filter((r) => !r.endedAt && processAlive(r.pid, r.host)).map((r) => r.rolloutId));
  if (except) live.add(except);
  const byLineage = new Map<string, Orphans>();
  const of = (l: string): Orphans => {
    let o = byLineage.get(l);
    if (!o) byLineage.set(l, (o = { lineage: l, transcripts: [], snapshots: [] }));
    return o;
  };
  for (const r of records) {
    if ((lineage !== undefined && r.lineage !== lineage) || live.has(r.rolloutId) || onHeads.has(r.rolloutId)) continue;
    // Its session wrote to another store: adopted there (`recover --store`), never into this one.
    if (otherStoreOf(r, store.root) !== null) continue;
    const path = join(home, 'transcripts', `${r.rolloutId}.jsonl`);
    const st = await stat(path).catch(() => null);
    if (st?.isFile() && st.size > 0) of(r.lineage).transcripts.push({ rolloutId: r.rolloutId, path });
  }
  const named = new Set([...Object.values(await store.listHeads()), ...Object.values(await store.listBranches())]);
  const kept = await keptChains(store, named);
  const manifests: Manifest[] = await store.list(lineage === undefined ? {} : { lineage });
  const recorded = new Map(records.map((r) => [r.rolloutId, r]));
  for (const m of manifests) {
    if (named.has(m.id)) continue;
    // A rollout of a live session, or of one we know nothing about that is younger than an hour, is not orphaned.
    const young = Date.now() - Date.parse(m.createdAt) < 60 * 60_000;
    const missing = m.rolloutIds.filter((r) => !onHeads.has(r) && !live.has(r) && (recorded.has(r) || !young));
    // The workspace snapshot of a session that never landed holds its code even once its transcript is on a
    // head (adopted while naming the branch failed, e.g. on a full disk): orphaned until a head or branch keeps it.
    const own = m.kind === 'workspace' ? m.rolloutIds.at(-1) : undefined;
    if (own !== undefined && recorded.has(own) && !live.has(own) && !missing.includes(own) && !kept(m) && !(await codeHeld(store, m, layoutDirs))) missing.push(own);
    if (missing.length > 0) of(m.lineage).snapshots.push({ id: m.id, rolloutIds: missing });
  }
  // A rollout is adopted from the newest snapshot that holds it; older snapshots on its way need no branch.
  for (const o of byLineage.values()) {
    const seen = new Set<string>();
    o.snapshots = o.snapshots
      .sort((a, b) => (a.id < b.id ? 1 : -1))
      .filter((s) => {
        const fresh = s.rolloutIds.filter((r) => !seen.has(r));
        for (const r of fresh) seen.add(r);
        return fresh.length > 0;
      });
  }
  return [...byLineage.values()].filter((o) => o.transcripts.length + o.snapshots.length > 0);
}

/**
 * What adoption did: rollouts whose transcripts went into `sessions/`, the branches their code is on (named now,
 * or earlier), the notes it took.
 */
export interface Adoption {
  rolloutIds: string[];
  branches: { name: string; snapshot: string }[];
  /** The agent's notes of orphaned snapshots merged into the layout (`orphan-notes.ts`), workspace-relative. */
  notes: string[];
  /** Their agents' edits of MEMORY.md, for the pipeline to judge as each rollout's proposals. */
  memoryEdits: AgentMemoryEdits[];
}

/**
 * Adopts the orphans of `lineage` into the memory layout at `layoutDir`: each orphaned rollout's transcript goes
 * into `sessions/` (the host copy, else the copy in its snapshot), so the pipeline extracts it and the next
 * memory snapshot lists it; each orphaned snapshot's notes under `memories/` are merged in (`adoptOrphanNotes`)
 * and the snapshot is named as the branch `LINEAGE@<rollout-id>` (an existing branch of that name is left as it is). Failures of one orphan are logged and skipped, never fatal.
 */
export async function adoptOrphans(
  store: SnapshotStore,
  home: string,
  lineage: string,
  layoutDir: string,
  layout: MemoryLayout,
  except?: string,
): Promise<Adoption> {
  const adoption: Adoption = { rolloutIds: [], branches: [], notes: [], memoryEdits: [] };
  const [orphans] = await findOrphans(store, home, lineage, except, layoutDirsOf(layout));
  if (!orphans) return adoption;
  const sessions = join(layoutDir, layout.sessionsDir);
  await mkdir(sessions, { recursive: true });
  const have = new Set((await readdir(sessions).catch(() => [] as string[])).map((f) => f.replace(/\.jsonl$/, '')));
  for (const t of orphans.transcripts) {
    if (have.has(t.rolloutId)) continue;
    await copyFile(t.path, join(sessions, `${t.rolloutId}.jsonl`));
    have.add(t.rolloutId);
    adoption.rolloutIds.push(t.rolloutId);
  }
  for (const s of orphans.snapshots) {
    for (const r of s.rolloutIds.filter((x) => !have.has(x))) {
      const rel = `${layout.sessionsDir}/${r}.jsonl`;
      try {
        await store.restoreToDirectory(s.id, layoutDir, { paths: [rel] });
        await dropLayoutLinks(layoutDir, layout);
        if (await stat(join(layoutDir, rel)).then((x) => x.isFile(), () => false)) {
          have.add(r);
          adoption.rolloutIds.push(r);
        }
      } catch (err) {
        log.warn({ snapshot: s.id, rolloutId: r, err: (err as Error).message }, 'could not adopt a rollout from its snapshot');
      }
    }
    const own = s.rolloutIds[s.rolloutIds.length - 1] as string;
    // Its notes under memories/ go to the head's memory, as a session's that lost the head race do.
    try {
      const taken = await adoptOrphanNotes(store, s.id, own, layoutDir, layout, dirname(layoutDir));
      adoption.notes.push(...taken.notes);
      if (taken.memoryEdits) adoption.memoryEdits.push(taken.memoryEdits);
    } catch (err) {
      log.warn({ snapshot: s.id, err: (err as Error).message }, 'could not adopt the memory notes of an orphaned snapshot; they stay on its branch');
    }
    const name = sessionBranch(lineage, own);
    try {
      // Its transcript was what was missing: the code is already on the head, so a branch would only repeat it.
      const m = await store.get(s.id);
      if (m.kind === 'workspace' && (await codeHeld(store, m, layoutDirsOf(layout)))) {
        log.info({ snapshot: s.id, rolloutId: own }, 'the head already holds the code of an orphaned snapshot: no branch');
      } else if ((await store.getBranch(name)) === null) {
        await store.moveBranch(name, null, s.id);
        adoption.branches.push({ name, snapshot: s.id });
      }
    } catch (err) {
      log.warn({ snapshot: s.id, branch: name, err: (err as Error).message }, 'could not name an orphaned snapshot');
    }
  }
  // An adopted rollout whose code was named earlier (by `recover`, or by a session that adopted it and then
  // failed to land): its branch is where that code is, and the run that adopts it says so (eleventh trial: a
  // killed run's code was on a branch that the next run's output did not name).
  for (const r of adoption.rolloutIds) {
    const name = sessionBranch(lineage, r);
    if (adoption.branches.some((b) => b.name === name)) continue;
    const snapshot = await store.getBranch(name).catch(() => null);
    if (snapshot) adoption.branches.push({ name, snapshot });
  }
  if (adoption.rolloutIds.length || adoption.branches.length || adoption.notes.length) log.info({ lineage, ...adoption }, 'adopted orphaned rollouts');
  return adoption;
}

/**
 * Removes `<home>/tmp/session-*` scratch directories of sessions whose process is gone (their names carry the
 * pid: `session-<rollout-id>-p<pid>-XXXXXX`; older names without one are removed after a day). Returns the
 * paths removed. Never throws.
 */
export async function removeDeadScratch(home: string): Promise<string[]> {
  const dir = join(home, 'tmp');
  const removed: string[] = [];
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    if (!name.startsWith('session-')) continue;
    const pid = /-p(\d+)-[^-]*$/.exec(name)?.[1];
    const path = join(dir, name);
    const dead = pid !== undefined ? !processAlive(Number(pid)) : await stat(path).then((s) => Date.now() - s.mtimeMs > 86_400_000, () => false);
    if (!dead) continue;
    await rm(path, { recursive: true, force: true }).then(() => removed.push(path), () => undefined);
  }
  if (removed.length) log.info({ removed }, 'removed scratch directories of sessions that are gone');
  return removed;
}

/**
 * Removes the session records of `lineage` that nothing will ever read: the session is gone (ended, or its
 * process dead), it died before its restore ended (`restore: 'pending'`: the agent never ran), it left no
 * transcript (none, or empty) and no sandbox of it remains (`hasSandbox`, asked last: a container still needs its
 * record to be told unrestored). Such records were never removed (tenth new-user trial, low). Returns the rollout
 * ids whose record went. Never throws.
 */
export async function removeSpentRecords(home: string, lineage: string, hasSandbox: (rolloutId: string) => Promise<boolean>): Promise<string[]> {
  const removed: string[] = [];
  for (const r of await readRecords(home)) {
    if (r.lineage !== lineage || r.restore !== 'pending' || (!r.endedAt && processAlive(r.pid, r.host))) continue;
    const transcript = await stat(join(home, 'transcripts', `${r.rolloutId}.jsonl`)).catch(() => null);
    if ((transcript?.size ?? 0) > 0 || (await hasSandbox(r.rolloutId).catch(() => true))) continue;
    await rm(recordPath(home, r.rolloutId), { force: true }).then(() => removed.push(r.rolloutId), () => undefined);
  }
  if (removed.length) log.info({ lineage, removed }, 'removed the records of sessions that died before their agent ran');
  return removed;
}
