import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { memoryPaths } from '../../src/memory/layout.js';
import { parseMemoryMd } from '../../src/memory/memory-md.js';
import { estimateTokens } from '../../src/memory/tokens.js';
import { importTranscriptFile } from '../../src/transcript/importers/index.js';
import { buildMemoryBlock } from '../../src/memory/read.js';
import { findForbidden, judgeEntries, type RepoFigures } from './judge.js';
import { judgeStrict, ToolOutputs, type StrictFigures } from './strict.js';
import { loadCases } from './labels.js';
import { learnInto, type Extractor } from './pipeline.js';

/** The eval's figures: per repo and in total (ratios 0…1). */
export interface EvalFigures {
  folder: string;
  /** `deterministic` or `model:<name>`. */
  producer: string;
  repos: Array<RepoFigures & { strict: StrictFigures; block: BlockFigures }>;
  total: {
    /** The stricter scorer (`strict.ts`): lessons stated outside quoted tool output; every entry a lesson or junk. */
    strict: { captured: number; recall: number; junk: number; junkRate: number; duplicates: number; stale: number };
    /** Prompt blocks over all repos: the largest (tokens), entries left out in all. */
    blockTokensMax: number;
    blockOmitted: number;
    lessons: number;
    captured: number;
    recall: number;
    entries: number;
    junk: number;
    junkRate: number;
    duplicates: number;
    stale: number;
    forbidden: number;
    forbiddenInSessions: number;
    memoryMdBytes: number;
  };
}

/** The memory block the repo's next run would start with (budget 1,500 tokens, the default `memory.readBudgetTokens`). */
export interface BlockFigures {
  tokens: number;
  included: number;
  omitted: number;
}

/**
 * Runs the memory pipeline over a folder in the fixtures format: per repo a fresh temporary workspace,
 * its transcripts learned in `sequence` order, then MEMORY.md judged against the labels and every file
 * under `memories/` searched for forbidden strings (and, reported apart, the stored transcripts in `sessions/`). `keep` leaves the workspaces in place (paths in `workspaces`).
 */
export async function runEval(
  folder: string,
  options: { keep?: boolean; how?: Extractor } = {},
): Promise<EvalFigures & { workspaces: Record<string, string> }> {
  const how = options.how ?? { extractor: 'deterministic' };
  const cases = await loadCases(folder);
  const repos: EvalFigures['repos'] = [];
  const workspaces: Record<string, string> = {};
  let day = 0;
  for (const [repo, list] of cases) {
    const ws = await mkdtemp(join(tmpdir(), `mnemara-eval-${repo.replace(/[^\w-]/g, '_')}-`));
    workspaces[repo] = ws;
    try {
      const paths = memoryPaths(ws);
      for (const c of list) {
        day += 1;
        await learnInto(paths, c.transcript, new Date(Date.UTC(2026, 0, 1) + day * 86_400_000).toISOString(), how);
      }
      const memoryMd = await readFile(paths.memoryMd, 'utf8').catch(() => '');
      const parsed = memoryMd ? parseMemoryMd(memoryMd).entries : [];
      const entries = parsed.map((e) => e.text);
      const rel = async (dir: string) => new Map([...(await readTree(dir))].map(([f, t]) => [relative(ws, f), t]));
      const all = [...cases.values()].flat();
      const outputs: string[] = [];
      for (const c of list) {
        const imported = await importTranscriptFile(c.transcript, {});
        for (const r of imported.records) if (r.record.type === 'tool_result') outputs.push(r.record.output);
      }
      const block = await buildMemoryBlock({ workspaceDir: ws, budgetTokens: 1500, task: 'continue the work on this repository' });
      repos.push({
        ...judgeEntries(repo, list, entries),
        strict: judgeStrict(list, parsed.map((e) => ({ kind: e.kind, text: e.text })), new ToolOutputs(outputs)),
        block: { tokens: estimateTokens(block.text), included: block.included.length, omitted: block.omitted.length },
        forbidden: findForbidden(all, await rel(paths.memoriesDir)),
        // Transcripts keep tool output as it was (redacted): an injected instruction is on record there, by design.
        forbiddenInSessions: findForbidden(all, await rel(paths.sessionsDir)),
        memoryMdBytes: Buffer.byteLength(memoryMd),
        memoryMdTokens: estimateTokens(memoryMd),
      });
    } finally {
      if (!options.keep) await rm(ws, { recursive: true, force: true });
    }
  }
  const sum = (f: (r: EvalFigures['repos'][number]) => number) => repos.reduce((a, r) => a + f(r), 0);
  const lessons = sum((r) => r.lessons);
  const entries = sum((r) => r.entries);
  return {
    folder,
    producer: how.extractor === 'model' ? `model:${how.model}` : 'deterministic',
    repos,
    workspaces: options.keep ? workspaces : {},
    total: {
      strict: {
        captured: sum((r) => r.strict.captured),
        recall: lessons ? sum((r) => r.strict.captured) / lessons : 1,
        junk: sum((r) => r.strict.junk),
        junkRate: entries ? sum((r) => r.strict.junk) / entries : 0,
        duplicates: sum((r) => r.strict.duplicates),
        stale: sum((r) => r.strict.stale),
      },
      blockTokensMax: Math.max(0, ...repos.map((r) => r.block.tokens)),
      blockOmitted: sum((r) => r.block.omitted),
      lessons,
      captured: sum((r) => r.captured),
      recall: lessons ? sum((r) => r.captured) / lessons : 1,
      entries,
      junk: sum((r) => r.junk),
      junkRate: entries ? sum((r) => r.junk) / entries : 0,
      duplicates: sum((r) => r.duplicates),
      stale: sum((r) => r.stale),
      forbidden: sum((r) => r.forbidden.length),
      forbiddenInSessions: sum((r) => r.forbiddenInSessions.length),
      memoryMdBytes: sum((r) => r.memoryMdBytes),
    },
  };
}

async function readTree(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const walk = async (d: string): Promise<void> => {
    const items = await readdir(d, { withFileTypes: true }).catch(() => []);
    for (const it of items) {
      const p = join(d, it.name);
      if (it.isDirectory()) await walk(p);
      else if (it.isFile()) out.set(p, await readFile(p, 'utf8'));
    }
  };
  await walk(dir);
  return out;
}
