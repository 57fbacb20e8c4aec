/**
 * Thirteenth trial F21: a run's summary said "1 removed" without naming the lesson, so nobody noticed a true one
 * had gone. The removed entries are named, with where they went and how to bring them back.
 */
import { describe, expect, it } from 'vitest';
import { formatSummary } from '../../src/cli/commands/run.js';
import type { MemoryEntry } from '../../src/memory/memory-md.js';
import type { SessionResult } from '../../src/session.js';
import { diffLessons } from '../../src/session/lessons.js';

const entry = (id: string, text: string): MemoryEntry => ({ id, kind: 'procedure', text, sources: ['r1'], importance: 3, edited: false }) as MemoryEntry;

describe('the lessons a run removed', () => {
  it('are named in the summary by their words and id, with the way back', () => {
    const lint = entry('m-74bb0c2c', 'Run the linter with `npm run lint` (the CI uses it).');
    const build = entry('m-c7831a97', 'Build the bundle with `npm run build` before publishing.');
    const lessons = diffLessons([lint], [build]);
    expect(lessons).toMatchObject({ added: ['m-c7831a97'], removed: ['m-74bb0c2c'] });
    const summary = formatSummary({
      outcome: 'completed', turns: 2, usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheCreationTokens: 0 }, timings: { totalMs: 1 },
      rolloutId: 'r2', workspaceSnapshot: 's1', memorySnapshot: 's2', head: 's2', lineage: 'seq', headConflicts: 0, pending: false, lessons, transcriptPath: '/t', start: { kind: 'head', snapshotId: 's0' },
    } as unknown as SessionResult);
    expect(summary).toContain('  - Run the linter with `npm run lint` (the CI uses it). [m-74bb0c2c] (memories/archive.md; mnemara memory restore m-74bb0c2c)');
  });

  // Re-trial of trial 23: a repository's own MEMORY.md came in as it was, and its removed entries were printed in
  // the run summary (stdout, CI logs) with their tokens and passwords.
  it('are named redacted', () => {
    const token = 'ghp_FAKErealLookingTokenAbcdefghijklmnop01';
    const deploy = entry('m-11111111', `Deploy with \`DEPLOY_TOKEN=${token} ./deploy.sh\`.`);
    const db = entry('m-33333333', 'The staging db password is HostileFAKE_9911.');
    const lessons = diffLessons([deploy, db], []);
    const said = JSON.stringify(lessons.text);
    expect(said).not.toContain(token);
    expect(said).not.toContain('HostileFAKE_9911');
    expect(lessons.removed.sort()).toEqual(['m-11111111', 'm-33333333']);
  });

  // Re-trial of trial 23: the summary sent the user to archive.md and `memory restore` for entries that were dropped
  // (a repository's entries that held secrets), and no archive.md existed: restore failed.
  it('point to archive.md only for entries archive.md holds; the others are said to be dropped', () => {
    const lint = entry('m-74bb0c2c', 'Run the linter with `npm run lint` (the CI uses it).');
    const hostile = entry('m-33333333', 'Deploy with the token from the wiki page.');
    const lessons = diffLessons([lint, hostile], [], [lint]);
    expect(lessons.archived).toEqual(['m-74bb0c2c']);
    const summary = formatSummary({
      outcome: 'completed', turns: 2, usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheCreationTokens: 0 }, timings: { totalMs: 1 },
      rolloutId: 'r2', workspaceSnapshot: 's1', memorySnapshot: 's2', head: 's2', lineage: 'seq', headConflicts: 0, pending: false, lessons, transcriptPath: '/t', start: { kind: 'head', snapshotId: 's0' },
    } as unknown as SessionResult);
    expect(summary).toContain('[m-74bb0c2c] (memories/archive.md; mnemara memory restore m-74bb0c2c)');
    expect(summary).toContain('[m-33333333] (dropped, not archived: not restorable)');
    expect(summary).not.toContain('memory restore m-33333333');
  });
});
