/**
 * Issue 9, new-user trial (medium): a hand-written MEMORY.md holding bytes that are not UTF-8 (a latin-1 editor's
 * é is the one byte 0xe9) came back from consolidation with U+FFFD in their place: the bytes were lost without a
 * word. They are now kept as the text `\xNN` (their value, as mnemara prints such bytes everywhere), with a warning.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { consolidate } from '../../src/memory/phase2/index.js';
import { linkWarning, readMemoryMd } from '../../src/memory/phase2/write.js';
import { CONFIG, raw, tempWorkspace, writeRollout } from './helpers.js';

describe('a hand-written MEMORY.md that is not UTF-8', () => {
  it('keeps each such byte as \\xNN through consolidation, never U+FFFD', async () => {
    const paths = await tempWorkspace();
    await writeRollout(paths, 'r1', '2026-11-01T10:00:00Z', [raw('fact', 'The API server listens on port 8081, not 8080.', 3)]);
    await consolidate({ paths, config: CONFIG, mode: 'deterministic' });
    const text = readFileSync(paths.memoryMd, 'latin1').replace('port 8081', 'port 8081 (caf\xe9 VM, na\xefve \xff)');
    writeFileSync(paths.memoryMd, Buffer.from(text, 'latin1'));
    expect(await readMemoryMd(paths)).toContain('caf\\xe9 VM, na\\xefve \\xff');

    await writeRollout(paths, 'r2', '2026-11-02T10:00:00Z', [raw('fact', 'Integration tests need `docker compose up db` first.', 3)]);
    await consolidate({ paths, config: CONFIG, mode: 'deterministic' });
    const after = readFileSync(paths.memoryMd);
    expect(after.includes(Buffer.from('\uFFFD'))).toBe(false);
    expect(after.toString('utf8')).toContain('caf\\xe9 VM, na\\xefve \\xff');
    expect(after.toString('utf8')).toContain('docker compose up db');
  });
});

describe('a MEMORY.md that is a symlink', () => {
  it('is replaced by a plain file with a warning naming the link and its target, which stays as it was', async () => {
    const { symlinkSync, lstatSync, mkdirSync } = await import('node:fs');
    const { dirname, join } = await import('node:path');
    const paths = await tempWorkspace();
    const notes = join(dirname(paths.memoriesDir), 'docs', 'notes.md');
    mkdirSync(dirname(notes), { recursive: true });
    writeFileSync(notes, '# my notes\n');
    mkdirSync(paths.memoriesDir, { recursive: true });
    symlinkSync('../docs/notes.md', paths.memoryMd);
    expect(await linkWarning(paths.memoryMd)).toBe('MEMORY.md was a symlink (to ../docs/notes.md); consolidation replaces it with a plain file and leaves ../docs/notes.md as it was');
    await writeRollout(paths, 'r1', '2026-11-01T10:00:00Z', [raw('fact', 'The API server listens on port 8081, not 8080.', 3)]);
    await consolidate({ paths, config: CONFIG, mode: 'deterministic' });
    expect(lstatSync(paths.memoryMd).isFile()).toBe(true);
    expect(readFileSync(notes, 'utf8')).toBe('# my notes\n');
    expect(await linkWarning(paths.memoryMd)).toBeUndefined();
  });
});
