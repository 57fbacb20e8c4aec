/**
 * What `mnemara lineage` shows and does (DESIGN.md "lineage", "branch"): the lineages of a store with their
 * heads, branches, sizes and last run; one lineage's history with each run's outcome and lessons; moving a head
 * to a chosen snapshot (the old head kept as a branch); creating and deleting branches.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dropLayoutLinks } from '../memory/layout-links.js';
import { MnemaraError } from '../config/errors.js';
import { logger } from '../config/logger.js';
import type { MemoryLayout } from '../config/memory.js';
import { parseRolloutSummary } from '../memory/artifacts.js';
import { parseMemoryMd } from '../memory/memory-md.js';
import { HeadConflictError } from '../snapshot/errors.js';
import { isValidBranch, isValidLineage, lineageOfBranch } from '../snapshot/id.js';
import type { Manifest, SnapshotStore } from '../snapshot/types.js';

const log = logger('session.lineage');

/** One lineage in `lineage list`. Bytes are stored (compressed) bytes. */
export interface LineageInfo {
  name: string;
  /** Head snapshot id; `null` when the ref is damaged (see `error`). */
  head: string | null;
  headKind?: Manifest['kind'];
  /** Stored bytes of the head's layer chain (what a restore reads). */
  headBytes?: number;
  /** Snapshots of the lineage in the store, and their stored bytes (shared layers counted once). */
  snapshots: number;
  storedBytes: number;
  /** The newest rollout the head holds, and when the head was written (ISO 8601). */
  lastRun?: { rolloutId: string; at: string };
  branches: { name: string; snapshot: string; createdAt?: string }[];
  error?: string;
}

const chainBytes = (m: Manifest): number => m.layers.reduce((n, l) => n + l.compressedBytes, 0);

/** Every lineage of the store (those with a head or a branch), sorted by name. Never throws for one bad ref. */
export async function listLineages(store: SnapshotStore): Promise<LineageInfo[]> {
  const [heads, branches, all] = await Promise.all([store.listHeads(), store.listBranches(), store.list()]);
  const names = new Set([...Object.keys(heads), ...Object.keys(branches).map(lineageOfBranch), ...all.map((m) => m.lineage)]);
  const byId = new Map(all.map((m) => [m.id, m]));
  const out: LineageInfo[] = [];
  for (const name of [...names].sort()) {
    const ms = all.filter((m) => m.lineage === name);
    const digests = new Map<string, number>();
    for (const m of ms) for (const l of m.layers) digests.set(l.digest, l.compressedBytes);
    const info: LineageInfo = {
      name,
      head: null,
      snapshots: ms.length,
      storedBytes: [...digests.values()].reduce((a, b) => a + b, 0),
      branches: Object.entries(branches)
        .filter(([b]) => lineageOfBranch(b) === name)
        .map(([b, id]) => ({ name: b, snapshot: id, ...(byId.get(id) ? { createdAt: byId.get(id)!.createdAt } : {}) })),
    };
    try {
      info.head = await store.getHead(name);
      const m = info.head ? byId.get(info.head) ?? (await store.get(info.head)) : null;
      if (m) {
        info.headKind = m.kind;
        info.headBytes = chainBytes(m);
        const last = [...m.rolloutIds].sort().at(-1);
        if (last) info.lastRun = { rolloutId: last, at: m.createdAt };
      }
    } catch (err) {
      info.error = (err as Error).message;
    }
    out.push(info);
  }
  return out;
}

/** One run in a lineage's history. */
export interface RunRecord {
  rolloutId: string;
  /** The first snapshot of the chain that holds it. */
  snapshot: string;
  at: string;
  /** From its rollout summary (`null` while it is pending: not extracted yet). */
  outcome: string | null;
  task: string | null;
  /** MEMORY.md entries that cite it. */
  lessons: string[];
  /**
   * Per lesson (same order), the other rollouts the entry also cites: a lesson merged from two runs is listed under
   * each, and its text may name the other run's task (trial 22), so each listing says where else it came from.
   */
  lessonsAlsoFrom: string[][];
}

/** `lineage show`: the ref, the chain of snapshots from it back (newest first), the runs with outcome and lessons. */
export interface LineageHistory {
  name: string;
  head: string;
  chain: { id: string; kind: Manifest['kind']; createdAt: string; bytes: number; newRollouts: string[] }[];
  runs: RunRecord[];
  branches: { name: string; snapshot: string }[];
  /** Set when the head's memory could not be read (outcomes and lessons are then unknown). */
  memoryError?: string;
}

/**
 * The history of a lineage or branch: its snapshot chain (following `parent`, at most `limit` snapshots; a
 * missing parent ends it), each run with the outcome from its rollout summary and the MEMORY.md entries citing
 * it, read from the head's memory layout. Throws `NOT_FOUND` for a name with no ref.
 */
export async function lineageHistory(store: SnapshotStore, name: string, layout: MemoryLayout, limit = 200): Promise<LineageHistory> {
  const isBranch = name.includes('@');
  if (!(isBranch ? isValidBranch(name) : isValidLineage(name))) {
    throw new MnemaraError('INVALID_INPUT', `${JSON.stringify(name)} is neither a lineage nor a branch name`, {
      hint: 'Run `mnemara lineage list` to see the lineages and branches.',
    });
  }
  const head = isBranch ? await store.getBranch(name) : await store.getHead(name);
  if (!head) throw new MnemaraError('NOT_FOUND', `${isBranch ? 'branch' : 'lineage'} ${name} does not exist`, { hint: 'Run `mnemara lineage list` to see the lineages and branches.' });
  const chain: LineageHistory['chain'] = [];
  const firstSeen = new Map<string, Manifest>();
  for (let id: string | null = head; id && chain.length < limit; ) {
    const m: Manifest | null = await store.get(id).catch(() => null);
    if (!m) break;
    const parent: Manifest | null = m.parent ? await store.get(m.parent).catch(() => null) : null;
    const inherited = new Set(parent?.rolloutIds ?? []);
    const fresh = m.rolloutIds.filter((r) => !inherited.has(r));
    for (const r of fresh) firstSeen.set(r, m);
    chain.push({ id: m.id, kind: m.kind, createdAt: m.createdAt, bytes: chainBytes(m), newRollouts: fresh });
    id = m.parent;
  }
  const history: LineageHistory = {
    name,
    head,
    chain,
    runs: [],
    branches: Object.entries(await store.listBranches(isBranch ? lineageOfBranch(name) : name)).map(([b, s]) => ({ name: b, snapshot: s })),
  };
  const memory = await readHeadMemory(store, head, layout).catch((err: unknown) => {
    history.memoryError = (err as Error).message;
    return null;
  });
  const headManifest = await store.get(head).catch(() => null);
  for (const r of [...(headManifest?.rolloutIds ?? [])].sort().reverse()) {
    const m = firstSeen.get(r);
    const summary = memory?.summaries.get(r);
    history.runs.push({
      rolloutId: r,
      snapshot: m?.id ?? head,
      at: summary?.time ?? m?.createdAt ?? '',
      outcome: summary?.outcome ?? null,
      task: summary?.task ?? null,
      lessons: (memory?.lessons.get(r) ?? []).map((l) => l.text),
      lessonsAlsoFrom: (memory?.lessons.get(r) ?? []).map((l) => l.sources.filter((s) => s !== r)),
    });
  }
  return history;
}

/** The rollout summaries (outcome, task, time by rollout id) and lessons (MEMORY.md texts with all their sources, by source rollout) of a head's memory layout. */
export async function readHeadMemory(
  store: SnapshotStore,
  head: string,
  layout: MemoryLayout,
): Promise<{ summaries: Map<string, { outcome: string; task: string; time: string }>; lessons: Map<string, Array<{ text: string; sources: string[] }>> }> {
  const dir = await mkdtemp(join(tmpdir(), 'mnemara-lineage-'));
  try {
    await store.restoreToDirectory(head, dir, { paths: [layout.memoriesDir] });
    await dropLayoutLinks(dir, layout);
    const summaries = new Map<string, { outcome: string; task: string; time: string }>();
    const sdir = join(dir, layout.memoriesDir, 'rollout_summaries');
    for (const f of (await readdir(sdir).catch(() => [] as string[])).filter((x) => x.endsWith('.md'))) {
      try {
        const { meta, summary } = parseRolloutSummary(await readFile(join(sdir, f), 'utf8'), f);
        summaries.set(meta.rolloutId, { outcome: String(meta.outcome ?? summary.outcome), task: summary.task, time: meta.time });
      } catch (err) {
        log.warn({ file: f, err: (err as Error).message }, 'unreadable rollout summary');
      }
    }
    const lessons = new Map<string, Array<{ text: string; sources: string[] }>>();
    const md = await readFile(join(dir, layout.memoriesDir, 'MEMORY.md'), 'utf8').catch(() => null);
    for (const e of md ? parseMemoryMd(md).entries : []) {
      for (const r of e.sources) lessons.set(r, [...(lessons.get(r) ?? []), { text: e.text, sources: [...e.sources] }]);
    }
    return { summaries, lessons };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The branch a `lineage reset` keeps the old head on: `LINEAGE@reset-<UTC stamp>`. */
export function resetBranchName(lineage: string, now = new Date()): string {
  return `${lineage}@reset-${now.toISOString().replace(/[-:.]/g, '')}`;
}

/** What `lineage reset` did. */
export interface ResetResult {
  lineage: string;
  from: string | null;
  to: string;
  /** The branch now holding the old head (absent when there was none, or it named no snapshot). */
  keptAs?: string;
  note?: string;
}

/**
 * Moves the head of `lineage` to `snapshot` (any complete snapshot of the store, e.g. an older one of the chain,
 * or a branch's), keeping the old head as the branch `LINEAGE@reset-<stamp>` so nothing is lost; the branch is the
 * record of the reset. Works on a damaged head too (a ref that names no snapshot, or holds garbage): that is what
 * it is for. Throws `NOT_FOUND` for an unknown snapshot, `HeadConflictError` if the head moves meanwhile.
 */
export async function resetLineage(store: SnapshotStore, lineage: string, snapshot: string, options: { force?: boolean } = {}): Promise<ResetResult> {
  if (!isValidLineage(lineage)) {
    throw new MnemaraError('INVALID_INPUT', `invalid lineage name ${JSON.stringify(lineage)}`, { hint: 'Run `mnemara lineage list` to see the lineages.' });
  }
  const target = await store.get(snapshot); // NOT_FOUND for an unknown id
  // Another lineage's snapshot brings that project's tree and memory: most often a pasted id of the wrong lineage
  // (trial 22 F5: a 40 KiB demo lineage was pointed at the axios head without a word).
  if (target.lineage !== lineage && !options.force) {
    throw new MnemaraError('INVALID_INPUT', `snapshot ${target.id} belongs to lineage ${target.lineage}, not ${lineage}: the next run on ${lineage} would start from that tree and its memory`, {
      hint: `Check the id (mnemara snapshot list --lineage ${lineage}); to move the head there anyway, pass --force.`,
    });
  }
  let from: string | null;
  let note: string | undefined;
  try {
    from = await store.getHead(lineage);
  } catch (err) {
    from = null; // a ref holding garbage: replaced (a CAS expecting "no readable head")
    note = `the old head ref was unreadable (${(err as Error).message}) and is replaced`;
  }
  const result: ResetResult = { lineage, from, to: target.id };
  if (from !== null && from !== target.id) {
    const name = resetBranchName(lineage);
    try {
      await store.moveBranch(name, null, from);
      result.keptAs = name;
    } catch (err) {
      if (err instanceof HeadConflictError) throw err;
      note = `the old head ${from} could not be kept as a branch: ${(err as Error).message}`;
    }
  }
  await store.advanceHead(lineage, from, target.id);
  if (note) result.note = note;
  log.info({ ...result }, 'lineage head reset');
  return result;
}

/** `lineage branch`: names `snapshot` (default: the lineage's head) as the branch `name` (`LINEAGE@NAME`), new only. */
export async function createBranch(store: SnapshotStore, name: string, snapshot?: string): Promise<{ name: string; snapshot: string }> {
  if (!isValidBranch(name)) {
    throw new MnemaraError('INVALID_INPUT', `invalid branch name ${JSON.stringify(name)}`, {
      hint: 'A branch is named LINEAGE@NAME, e.g. ci/main@before-upgrade.',
    });
  }
  const id = snapshot ?? (await store.getHead(lineageOfBranch(name)));
  if (!id) throw new MnemaraError('NOT_FOUND', `lineage ${lineageOfBranch(name)} has no head to branch from`, { hint: 'Name a snapshot: `mnemara lineage branch NAME SNAPSHOT`.' });
  try {
    await store.moveBranch(name, null, id);
  } catch (err) {
    if (err instanceof HeadConflictError) {
      throw new MnemaraError('INVALID_INPUT', `branch ${name} already exists (at ${err.current ?? '?'})`, { hint: 'Choose another name, or `mnemara lineage delete` it first.' });
    }
    throw err;
  }
  return { name, snapshot: id };
}

/** `lineage delete`: removes the branch `name` (its snapshots become prunable). Throws `NOT_FOUND` when absent. */
export async function deleteBranch(store: SnapshotStore, name: string): Promise<{ name: string; snapshot: string }> {
  if (!isValidBranch(name)) {
    throw new MnemaraError('INVALID_INPUT', `${JSON.stringify(name)} is not a branch name (LINEAGE@NAME)`, {
      hint: 'Only branches can be deleted; a lineage head is moved with `mnemara lineage reset LINEAGE SNAPSHOT`.',
    });
  }
  const id = await store.getBranch(name);
  if (!id) throw new MnemaraError('NOT_FOUND', `branch ${name} does not exist`, { hint: 'Run `mnemara lineage list` to see the branches.' });
  await store.moveBranch(name, id, null);
  return { name, snapshot: id };
}
