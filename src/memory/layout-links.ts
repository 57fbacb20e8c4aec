/**
 * Symbolic links in a memory layout. The memory pipeline runs on the host: a link the agent made in the sandbox
 * (`ln -s /etc/shadow memories/MEMORY.md`) and copied out with the layout was followed there, and the host's file
 * became a lesson in MEMORY.md and the summary every later run starts with (thirteenth trial F12). No memory file
 * is a link: mnemara's own copies of a layout drop them (`dropLayoutLinks`), and the pipeline refuses a layout
 * that still holds one (a person's checkout: `assertNoLayoutLinks`).
 */
import { lstat, readdir, readlink, rm } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { MnemaraError } from '../config/errors.js';
import { logger } from '../config/logger.js';
import type { MemoryLayout } from '../config/memory.js';

const log = logger('memory');

/** The symbolic links under the layout's folders of `dir` (the folders themselves included); relative paths, sorted. */
export async function layoutLinks(dir: string, layout: MemoryLayout): Promise<string[]> {
  const found: string[] = [];
  const walk = async (path: string): Promise<void> => {
    const st = await lstat(path).catch(() => null);
    if (!st) return;
    if (st.isSymbolicLink()) found.push(relative(dir, path).split(sep).join('/'));
    else if (st.isDirectory()) for (const name of await readdir(path).catch(() => [] as string[])) await walk(join(path, name));
  };
  for (const folder of [layout.memoriesDir, layout.sessionsDir]) await walk(join(dir, folder));
  return found.sort();
}

/**
 * Removes every symbolic link under the layout's folders of `dir`, a copy mnemara made (from a sandbox or a
 * snapshot): what a link points at is no memory. Logs a warning naming them (and their targets). Returns them.
 */
export async function dropLayoutLinks(dir: string, layout: MemoryLayout): Promise<string[]> {
  const links = await layoutLinks(dir, layout);
  if (links.length === 0) return links;
  const targets = await Promise.all(links.map((l) => readlink(join(dir, l)).catch(() => '?')));
  for (const l of links) await rm(join(dir, l), { force: true });
  log.warn({ links: links.map((l, i) => `${l} -> ${targets[i]}`) }, 'symbolic links in the memory layout were left out: the memory pipeline reads no link (it could point at any file of this host)');
  return links;
}

/**
 * Throws `MnemaraError('INVALID_INPUT')` naming the links when the layout of `dir` holds any: the pipeline would
 * read (and write through) them on the host.
 */
export async function assertNoLayoutLinks(dir: string, layout: MemoryLayout): Promise<void> {
  const links = await layoutLinks(dir, layout);
  if (links.length === 0) return;
  throw new MnemaraError('INVALID_INPUT', `the memory layout of ${dir} holds symbolic links: ${links.slice(0, 5).join(', ')}${links.length > 5 ? ` and ${links.length - 5} more` : ''}`, {
    hint: 'The memory pipeline reads no link (one could point at any file of this host). Replace each link with the file it points at, or remove it, then run again.',
  });
}
