/**
 * Which memory a `memory` or `snapshot list` command means. A run leaves the host directory as it was (the
 * result is on the lineage), so `-w DIR` on a directory that holds no memory of its own means DIR's lineage
 * head; the command says so in its output.
 */
import { redactLayoutTree, type TreeRedaction } from '../memory/redact-tree.js';
import { access, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dropLayoutLinks } from '../memory/layout-links.js';
import { MnemaraError } from '../config/errors.js';
import { defaultStoreDir } from '../config/paths.js';
import type { MnemaraConfig } from '../config/schema.js';
import { existingWorkspaceDir, memoryPaths, snapshotConfigKeepingLayout } from '../memory/layout.js';
import { assertNoLayoutLinks } from '../memory/layout-links.js';
import { workspaceLineage } from '../session/start.js';
import { openSnapshotStore, type AnyStore } from '../snapshot/index.js';
import { maxOf } from '../config/arrays.js';

/** Where the memory is: a directory on the host, or a lineage head in the store. */
export type MemorySource =
  | { kind: 'workspace'; dir: string }
  | {
      kind: 'lineage';
      lineage: string;
      snapshot: string;
      /** Set when the lineage was derived from `-w DIR` (DIR holds no memory): that directory. */
      from?: string;
    };

/** What the user passed: `-w DIR` (and whether it was given, or is the default `.`), `--lineage NAME`. */
export interface MemoryTarget {
  workspace: string;
  workspaceGiven: boolean;
  lineage?: string;
}

export function memoryStore(config: MnemaraConfig): Promise<AnyStore> {
  return openSnapshotStore(config.snapshot.store ?? defaultStoreDir(), snapshotConfigKeepingLayout(config), { home: config.home });
}

/** True when `dir` holds a memory layout with a MEMORY.md (or a state file) of its own. */
export async function holdsMemory(dir: string, config: MnemaraConfig): Promise<boolean> {
  const p = memoryPaths(dir, config.memory.layout);
  for (const f of [p.memoryMd, p.stateFile]) {
    if (await access(f).then(() => true, () => false)) return true;
  }
  return false;
}

/** `lineage  head-id` lines of every lineage in the store, for "which one did you mean". */
export async function lineageLines(store: AnyStore): Promise<string[]> {
  const heads = await store.listHeads();
  const names = Object.keys(heads).sort();
  const width = maxOf(names.map((n) => n.length), 0);
  return names.map((n) => `  ${n.padEnd(width)}  head ${heads[n]}`);
}

/**
 * Resolves the memory the user means: `--lineage NAME` → that head; else `-w DIR` (default `.`) when it holds a
 * memory; else the head of DIR's default lineage (`workspaceLineage`, the same name `mnemara run -w DIR` uses), or
 * of its default branch's lineage when DIR is on a branch that has no run yet (what that branch's first run sees).
 * Returns `null` when nothing matches and no argument was given (the caller lists the lineages).
 * Throws `MnemaraError('NOT_FOUND')` (exit 2) when the named lineage has no head, or `-w DIR` holds no memory and
 * its lineage has none, with the lineages of the store in the hint.
 */
export async function resolveMemorySource(target: MemoryTarget, config: MnemaraConfig): Promise<MemorySource | null> {
  if (target.lineage !== undefined) {
    const store = await memoryStore(config);
    const head = await store.getHead(target.lineage);
    if (!head) throw await noLineage(store, `lineage ${target.lineage} has no snapshot`);
    return { kind: 'lineage', lineage: target.lineage, snapshot: head };
  }
  const dir = await existingWorkspaceDir(target.workspace);
  // A checkout's `memories -> /elsewhere` would have show read, and forget and redact write, a host folder the
  // repository chose (trial 25 N11): refused as `run` and `consolidate` refuse it.
  await assertNoLayoutLinks(dir, config.memory.layout);
  if (await holdsMemory(dir, config)) return { kind: 'workspace', dir };
  const store = await memoryStore(config);
  const chosen = await workspaceLineage(dir);
  // A branch with no run yet starts from its default branch's memory (resolveStart): show what that run would see.
  for (const lineage of [chosen.lineage, ...(chosen.base !== undefined ? [chosen.base] : [])]) {
    const head = await store.getHead(lineage).catch(() => null);
    if (head) return { kind: 'lineage', lineage, snapshot: head, from: dir };
  }
  const lineage = chosen.lineage;
  if (!target.workspaceGiven) return null;
  throw await noLineage(store, `${dir} holds no memory, and its lineage ${lineage} has no snapshot`);
}

/** The `NOT_FOUND` error (exit 2) for a lineage the store lacks: `message`, with the store's lineages in the hint. */
export async function noLineage(store: AnyStore, message: string): Promise<MnemaraError> {
  const lines = await lineageLines(store);
  return new MnemaraError('NOT_FOUND', message, {
    hint: lines.length
      ? `Lineages in ${store.root}:\n${lines.join('\n')}\n  Pass --lineage NAME, or -w DIR with the directory a run used.`
      : `The store ${store.root} has no lineage yet: run \`mnemara run -w DIR --task …\` first (or pass --store/--home).`,
  });
}

/** How the output names a source: the directory, or the lineage and its head (and the directory it came from). */
export function describeSource(source: MemorySource): string {
  if (source.kind === 'workspace') return source.dir;
  const base = `lineage ${source.lineage} (head ${source.snapshot})`;
  return source.from ? `${base}, the lineage of ${source.from}, which holds no memory of its own` : base;
}

/** The source as JSON fields (never a temporary directory that is gone once the command ends). */
export function sourceJson(source: MemorySource): Record<string, string> {
  return source.kind === 'workspace'
    ? { source: 'workspace', workspace: source.dir }
    : { source: 'lineage', lineage: source.lineage, snapshot: source.snapshot, ...(source.from ? { workspace: source.from } : {}) };
}

/**
 * Runs `fn` on a directory holding the source's memory layout: the workspace itself, or the head's memory layout
 * restored into a temporary directory (removed afterwards). With `save`, a lineage source's changed layout is
 * stored as a memory snapshot on the head and the head moved to it by compare-and-swap; returns its id.
 */
export async function onMemoryDir<T>(
  source: MemorySource,
  config: MnemaraConfig,
  fn: (dir: string) => Promise<T>,
  save?: { rolloutIds?: string[] },
): Promise<{ value: T; snapshot?: string; redaction?: TreeRedaction }> {
  if (source.kind === 'workspace') return { value: await fn(source.dir) };
  const store = await memoryStore(config);
  const { memoriesDir, sessionsDir } = config.memory.layout;
  const tmp = await mkdtemp(join(tmpdir(), 'mnemara-memory-'));
  try {
    const dir = join(tmp, 'ws');
    // Both folders of the layout: a memory snapshot's scope is the whole layout, so one left out would be deleted.
    await store.restoreToDirectory(source.snapshot, dir, { paths: save ? [memoriesDir, sessionsDir] : [memoriesDir] });
    await dropLayoutLinks(dir, config.memory.layout);
    const value = await fn(dir);
    if (!save) return { value };
    // What is saved is the head's memory as edited: redacted like every memory a snapshot stores.
    const redaction = await redactLayoutTree(dir, [memoriesDir, sessionsDir]);
    const m = await store.create({ dir }, {
      lineage: source.lineage,
      kind: 'memory',
      parent: source.snapshot,
      rolloutIds: (await store.get(source.snapshot)).rolloutIds,
      scope: [memoriesDir, sessionsDir],
    });
    await store.advanceHead(source.lineage, source.snapshot, m.id);
    return { value, snapshot: m.id, redaction };
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}
