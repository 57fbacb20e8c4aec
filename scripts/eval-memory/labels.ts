import { readdir, readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

/** One labelled lesson (`<id>.labels.json`, see the fixtures' README). */
export const LessonSchema = z.object({
  id: z.string(),
  kind: z.string(),
  statement: z.string(),
  must_match_any: z.array(z.string()).min(1),
  dedupe_key: z.string().optional(),
  supersedes: z.array(z.string()).optional(),
  stale_patterns: z.array(z.string()).optional(),
});
export const LabelsSchema = z.object({
  id: z.string(),
  repo: z.string(),
  sequence: z.number(),
  lessons: z.array(LessonSchema),
  forbidden: z.array(z.string()),
  notes: z.string().optional(),
});
export type Lesson = z.infer<typeof LessonSchema>;
export type Labels = z.infer<typeof LabelsSchema>;

/** A labelled transcript: its file and labels. */
export interface Case {
  transcript: string;
  labels: Labels;
}

/** Cases grouped by repo, each group in `sequence` order; repos sorted by name. */
export async function loadCases(folder: string): Promise<Map<string, Case[]>> {
  const names = await readdir(folder);
  const byRepo = new Map<string, Case[]>();
  for (const name of names.filter((n) => n.endsWith('.labels.json')).sort()) {
    const base = name.slice(0, -'.labels.json'.length);
    const transcript = [`${base}.json`, `${base}.jsonl`].map((f) => join(folder, f)).find((f) => existsSync(f));
    if (!transcript) throw new Error(`${name}: no transcript ${base}.json(l) beside it`);
    const labels = LabelsSchema.parse(JSON.parse(await readFile(join(folder, name), 'utf8')));
    const list = byRepo.get(labels.repo) ?? [];
    list.push({ transcript, labels });
    byRepo.set(labels.repo, list);
  }
  for (const list of byRepo.values()) list.sort((a, b) => a.labels.sequence - b.labels.sequence);
  return new Map([...byRepo.entries()].sort(([a], [b]) => a.localeCompare(b)));
}

/**
 * The default fixtures: `$MNEMARA_EVAL_FIXTURES`, else the repository's own labelled transcripts in
 * `test/fixtures/transcripts` (the project's test data; nothing here reads outside the repository).
 */
export function defaultFixtures(): string {
  if (process.env.MNEMARA_EVAL_FIXTURES) return resolve(process.env.MNEMARA_EVAL_FIXTURES);
  return REPO_FIXTURES;
}

/** The labelled transcripts that ship with the repository (`test/fixtures/transcripts`). */
export const REPO_FIXTURES = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'test', 'fixtures', 'transcripts');
