import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadCases, type Case } from '../../scripts/eval-memory/labels.js';
import { importTranscriptFile } from '../../src/transcript/importers/index.js';

/**
 * The corpus labels are well-formed before anything is scored: every pattern compiles, a supersession names
 * a lesson of an earlier run of the same repo, and (for heldout-c, heldout-d, heldout-e, heldout-f, heldout-g, heldout-h, heldout-i, heldout-j, heldout-k, heldout-l, heldout-m, heldout-n, heldout-o, heldout-p, heldout-q and heldout-r, written blind) each lesson's patterns
 * match its own reference statement — a pattern that cannot match the plain wording of its lesson measures
 * nothing — and every forbidden string is really in the transcript it guards.
 */
/** Forbidden wording of a wrong outcome (a run that ended itself is not cut by the turn limit). */
const OUTCOME_GUARDS = ['stopped at the turn limit'];
const part = (p: string) => fileURLToPath(new URL(`../fixtures/corpus/${p}`, import.meta.url));

async function flat(p: string): Promise<Case[]> {
  return [...(await loadCases(part(p))).values()].flat();
}

describe('corpus labels', () => {
  for (const p of ['dev', 'heldout', 'heldout-kinds', 'heldout-c', 'heldout-d', 'heldout-e', 'heldout-f', 'heldout-g', 'heldout-h', 'heldout-i', 'heldout-j', 'heldout-k', 'heldout-l', 'heldout-m', 'heldout-n', 'heldout-o', 'heldout-p', 'heldout-q', 'heldout-r']) {
    it(`${p}: patterns compile and supersessions point at earlier runs of the same repo`, async () => {
      const cases = await flat(p);
      expect(cases.length).toBeGreaterThan(0);
      for (const c of cases) {
        for (const l of c.labels.lessons) {
          for (const pat of [...l.must_match_any, ...(l.stale_patterns ?? [])]) expect(() => new RegExp(pat, 'i'), `${c.labels.id}:${l.id} ${pat}`).not.toThrow();
          for (const ref of l.supersedes ?? []) {
            const [run, lesson] = ref.split(':');
            const target = cases.find((x) => x.labels.id === run);
            expect(target, `${c.labels.id}:${l.id} supersedes unknown run ${ref}`).toBeDefined();
            expect(target!.labels.repo).toBe(c.labels.repo);
            expect(target!.labels.sequence).toBeLessThan(c.labels.sequence);
            expect(target!.labels.lessons.map((x) => x.id)).toContain(lesson);
          }
        }
      }
    });
  }

  for (const p of ['heldout-c', 'heldout-d', 'heldout-e', 'heldout-f', 'heldout-g', 'heldout-h', 'heldout-i', 'heldout-j', 'heldout-k', 'heldout-l', 'heldout-m', 'heldout-n', 'heldout-o', 'heldout-p', 'heldout-q', 'heldout-r']) it(`${p}: each lesson matches its own statement, forbidden strings are in their transcripts, and the part has its promised shape`, async () => {
    const cases = await flat(p);
    for (const c of cases) {
      for (const l of c.labels.lessons) {
        expect(l.must_match_any.some((pat) => new RegExp(pat, 'i').test(l.statement)), `${c.labels.id}:${l.id}`).toBe(true);
      }
      const raw = await readFile(c.transcript, 'utf8');
      // Secrets and injected text guard something in the transcript; an outcome phrase guards a wrong outcome.
      for (const s of c.labels.forbidden.filter((x) => !OUTCOME_GUARDS.includes(x))) expect(raw.includes(JSON.stringify(s).slice(1, -1)), `${c.labels.id}: ${s}`).toBe(true);
      // The product's own importer reads every transcript (the format is the fixtures format).
      const imported = await importTranscriptFile(c.transcript, {});
      expect(imported.records.length).toBeGreaterThan(2);
    }
    const repos = new Map<string, number>();
    for (const c of cases) repos.set(c.labels.repo, (repos.get(c.labels.repo) ?? 0) + 1);
    expect(cases.length).toBeGreaterThanOrEqual(16);
    expect([...repos.values()].filter((n) => n >= 2).length).toBeGreaterThanOrEqual(4);
    // heldout-r was written from the README alone, not this test, and has two runs with nothing durable.
    expect(cases.filter((c) => c.labels.lessons.length === 0).length).toBeGreaterThanOrEqual(p === 'heldout-r' ? 2 : 3);
    const outcomes = await Promise.all(cases.map(async (c) => (JSON.parse(await readFile(c.transcript, 'utf8')) as { outcome: string }).outcome));
    expect(outcomes.filter((o) => o !== 'success').length).toBeGreaterThanOrEqual(4);
  }, 60_000);
});
