import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { MnemaraError } from '../config/errors.js';
import type { MemoryLayout } from '../config/memory.js';
import { writeFileAtomic } from './atomic.js';
import { memoryPaths, type MemoryPaths } from './layout.js';
import { withMemoryLock } from './lock.js';
import { entryText, parseMemoryMd, renderMemoryMd, type HandbookInfo, type MemoryEntry } from './memory-md.js';

/**
 * The archive (`memories/archive.md`): entries the caps pushed out of MEMORY.md are moved here, never
 * deleted silently (issue 12). Same bullet format as MEMORY.md (sections by kind, the `<!-- id:… -->` note),
 * so `memory search` finds them and `memory restore <id>` brings one back. Bounded: at most
 * {@link ARCHIVE_MAX_ENTRIES} entries, the longest-archived leave first (a person's own entries last).
 */
export const ARCHIVE_MAX_ENTRIES = 2000;

const TITLE = [
  '# Memory archive',
  '',
  '> Entries that no longer fit MEMORY.md (its size cap), newest first. They are not in any prompt.',
  '> Bring one back with `mnemara memory restore <id>`; find them with `mnemara memory search <words>`.',
  '',
];

/** The archived entries (newest first); [] when there is no archive. A damaged line is skipped, never fatal. */
export async function readArchive(paths: MemoryPaths): Promise<MemoryEntry[]> {
  const text = await readFile(paths.archiveMd, 'utf8').catch(() => null);
  if (text === null) return [];
  return parseMemoryMd(text).entries;
}

function render(entries: MemoryEntry[], info: HandbookInfo): string {
  // renderMemoryMd's sections and notes, under the archive's own title and explanation.
  const body = renderMemoryMd(entries, info).split('\n');
  const firstSection = body.findIndex((l) => l.startsWith('## ') || l === '_No lessons yet._');
  return [...TITLE, body.find((l) => l.startsWith('<!-- mnemara:')) ?? '', '', ...body.slice(firstSection)].join('\n');
}

/**
 * Moves `entries` (pushed out of MEMORY.md by a cap) into the archive, newest first; an id already archived
 * is replaced by the newer copy. Returns the ids that fell out of the bounded archive itself.
 */
export async function archiveEntries(paths: MemoryPaths, entries: MemoryEntry[], info: HandbookInfo): Promise<string[]> {
  if (entries.length === 0) return [];
  const ids = new Set(entries.map((e) => e.id));
  const all = [...entries, ...(await readArchive(paths)).filter((e) => !ids.has(e.id))];
  // Over the bound, a person's own entries leave last.
  const order = [...all.filter((e) => e.edited), ...all.filter((e) => !e.edited)];
  const kept = new Set(order.slice(0, ARCHIVE_MAX_ENTRIES).map((e) => e.id));
  await writeFileAtomic(paths.archiveMd, render(all.filter((e) => kept.has(e.id)), info));
  return all.filter((e) => !kept.has(e.id)).map((e) => e.id);
}

/**
 * `mnemara memory restore <id>`: moves an archived entry back into MEMORY.md, as a person's entry (`edited`:
 * a person chose it, so the caps keep it before any learned entry). `id` may be a unique prefix.
 * @throws MnemaraError `NOT_FOUND` (not in the archive), `USAGE` (ambiguous prefix), `BUSY` (the lock).
 */
export async function restoreEntry(workspaceDir: string, id: string, layout?: MemoryLayout): Promise<MemoryEntry> {
  const paths = memoryPaths(workspaceDir, layout);
  // Nothing archived: said before the lock, which would leave a memories/ folder behind in a checkout.
  if (!(await stat(paths.archiveMd).then((s) => s.isFile(), () => false))) {
    throw new MnemaraError('NOT_FOUND', `no entry ${id}: ${paths.archiveMd} does not exist`, { hint: 'mnemara memory search <words> lists archived entries with their ids (--lineage NAME for a lineage).' });
  }
  return withMemoryLock(join(paths.memoriesDir, '.lock'), async () => {
    const archived = await readArchive(paths);
    const matches = archived.filter((e) => e.id === id || e.id.startsWith(id));
    const entry = matches.find((e) => e.id === id) ?? (matches.length === 1 ? matches[0] : undefined);
    if (matches.length === 0) throw new MnemaraError('NOT_FOUND', `no entry ${id} in ${paths.archiveMd}`, { hint: 'mnemara memory search <words> lists archived entries with their ids.' });
    if (!entry) throw new MnemaraError('USAGE', `${id} matches ${matches.length} archived entries: ${matches.map((e) => e.id).join(', ')}`, { hint: 'Give more of the id.' });
    const md = await readFile(paths.memoryMd, 'utf8').catch(() => null);
    const restored: MemoryEntry = { ...entry, edited: true };
    const parsed = parseMemoryMd(md ?? '');
    const book = parsed.entries.filter((e) => e.id !== entry.id);
    const info = parsed.info ?? { consolidatedAt: new Date().toISOString(), producer: 'restore', promptVersion: 'none' };
    await writeFileAtomic(paths.memoryMd, renderMemoryMd([restored, ...book], info, parsed.blocks));
    const rest = archived.filter((e) => e.id !== entry.id);
    await writeFileAtomic(paths.archiveMd, render(rest, info));
    return { ...restored, text: entryText(restored.text) };
  });
}
