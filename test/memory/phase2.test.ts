import { readFile, stat, writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { parseMemoryMd } from '../../src/memory/memory-md.js';
import { parseSummary } from '../../src/memory/memory-summary-md.js';
import { entryId } from '../../src/memory/normalize.js';
import { consolidate } from '../../src/memory/phase2/index.js';
import { loadState } from '../../src/memory/state.js';
import { CONFIG, raw, tempWorkspace, writeRollout } from './helpers.js';

const det = (paths: Awaited<ReturnType<typeof tempWorkspace>>, config = CONFIG) => consolidate({ paths, config, mode: 'deterministic' });

async function entries(paths: Awaited<ReturnType<typeof tempWorkspace>>) {
  return parseMemoryMd(await readFile(paths.memoryMd, 'utf8')).entries;
}

describe('phase 2, deterministic', () => {
  it('writes MEMORY.md and the summary with ids and sources, and merges near-duplicates across rollouts', async () => {
    const paths = await tempWorkspace();
    await writeRollout(paths, 'r1', '2026-11-01T10:00:00Z', [raw('pitfall', 'Build with `cmake --build build -j4`: -j16 gets cc1plus OOM-killed.', 4)]);
    await writeRollout(paths, 'r2', '2026-11-02T10:00:00Z', [raw('pitfall', 'Build with `cmake --build build -j4`; -j16 gets cc1plus OOM-killed', 3), raw('preference', 'Write commit messages in the imperative mood.', 5)]);
    const res = await det(paths);
    expect(res.consolidated).toBe(true);
    expect(res.modelCalls).toBe(0);
    const es = await entries(paths);
    expect(es).toHaveLength(2);
    const build = es.find((e) => e.kind === 'pitfall')!;
    expect(build.sources.sort()).toEqual(['r1', 'r2']);
    expect(build.importance).toBe(4);
    const md = await readFile(paths.memoryMd, 'utf8');
    expect(md).toMatch(/## Preferences \(from the user\)\n\n- Write commit messages in the imperative mood\. <!-- id:m-[0-9a-f]{8} src:r2 imp:5/);
    expect(md).toContain('producer=deterministic prompt=consolidate-v1');
    const summary = parseSummary(await readFile(paths.summaryMd, 'utf8'));
    expect(summary.entries.map((e) => e.id).sort()).toEqual(es.map((e) => e.id).sort());
  });

  it('keeps an entry id stable when a later rollout rewords the same lesson', async () => {
    const paths = await tempWorkspace();
    await writeRollout(paths, 'r1', '2026-11-01T10:00:00Z', [raw('procedure', 'Run the unit tests with `make test-unit` (make test needs Docker).')]);
    await det(paths);
    const [first] = await entries(paths);
    expect(first!.id).toBe(entryId('Run the unit tests with `make test-unit` (make test needs Docker).'));
    await writeRollout(paths, 'r2', '2026-11-03T10:00:00Z', [raw('procedure', 'Run unit tests with `make test-unit`, since make test needs Docker.')]);
    await det(paths);
    const after = await entries(paths);
    expect(after).toHaveLength(1);
    expect(after[0]!.id).toBe(first!.id);
    expect(after[0]!.sources.sort()).toEqual(['r1', 'r2']);
    expect(after[0]!.text).toContain('since make test needs Docker');
  });

  it('makes zero changes when no raw memory changed: nothing is written', async () => {
    const paths = await tempWorkspace();
    await writeRollout(paths, 'r1', '2026-11-01T10:00:00Z', [raw('fact', 'The API listens on port 7420 in the sandbox.')]);
    await det(paths);
    const before = await stat(paths.memoryMd);
    const stateBefore = await readFile(paths.stateFile, 'utf8');
    const res = await det(paths);
    expect(res).toMatchObject({ consolidated: false, modelCalls: 0, added: [], removed: [] });
    expect((await stat(paths.memoryMd)).mtimeMs).toBe(before.mtimeMs);
    expect(await readFile(paths.stateFile, 'utf8')).toBe(stateBefore);
  });

  it('keeps a person\'s edit and a person\'s new entry, and a deletion sticks', async () => {
    const paths = await tempWorkspace();
    await writeRollout(paths, 'r1', '2026-11-01T10:00:00Z', [
      raw('procedure', 'Install dependencies with `pnpm install --frozen-lockfile`.'),
      raw('pitfall', 'The e2e suite needs the staging VPN; skip it in the sandbox.'),
    ]);
    await det(paths);
    let md = await readFile(paths.memoryMd, 'utf8');
    md = md.replace('Install dependencies with `pnpm install --frozen-lockfile`.', 'Install dependencies with `pnpm install --frozen-lockfile` (never `npm i`).');
    md = md.replace(/^- The e2e suite.*\n/m, '');
    md = md.replace('## Procedures\n\n', '## Procedures\n\n- Run `make lint` before committing.\n');
    await writeFile(paths.memoryMd, md);
    // A later rollout repeats the deleted lesson in other words, and the edited one in its original words.
    await writeRollout(paths, 'r2', '2026-11-02T10:00:00Z', [
      raw('pitfall', 'The e2e suite needs the staging VPN, so skip it in the sandbox.'),
      raw('procedure', 'Install dependencies with `pnpm install --frozen-lockfile`.'),
    ]);
    const res = await det(paths);
    expect(res.consolidated).toBe(true);
    const es = await entries(paths);
    expect(es.map((e) => e.text).sort()).toEqual(['Install dependencies with `pnpm install --frozen-lockfile` (never `npm i`).', 'Run `make lint` before committing.']);
    expect(es.every((e) => e.edited)).toBe(true);
    expect(es.find((e) => e.text.startsWith('Install'))!.sources.sort()).toEqual(['r1', 'r2']);
    const state = await loadState(paths.stateFile);
    expect(Object.values(state.forgotten).map((t) => t.reason)).toEqual(['deleted-by-hand']);
    // and it stays deleted through further consolidations
    await writeRollout(paths, 'r3', '2026-11-03T10:00:00Z', [raw('pitfall', 'The e2e suite needs the staging VPN; skip it in the sandbox.')]);
    await det(paths);
    expect((await entries(paths)).some((e) => e.text.includes('VPN'))).toBe(false);
  });

  it('lets the newer fact win: the npm → pnpm move drops the stale npm entries', async () => {
    const paths = await tempWorkspace();
    // Texts as the deterministic extractor writes them for the tessellate-ui fixtures.
    await writeRollout(paths, 'tess-1', '2026-10-01T10:00:00Z', [
      raw('pitfall', 'In this environment `npm test` failed: “getaddrinfo EAI_AGAIN staging-api.tessellate.example”. What worked: `npm run test:unit`.'),
      raw('procedure', 'Install the dependencies with `npm ci` (worked in this workspace).'),
    ]);
    await det(paths);
    expect(await entries(paths)).toHaveLength(2);
    await writeRollout(paths, 'tess-2', '2026-10-08T10:00:00Z', [
      raw('pitfall', 'In this environment `npm ci` failed: “npm error code EUSAGE”. What worked: `pnpm install --frozen-lockfile` (after `sudo corepack enable pnpm`).', 4),
      raw('procedure', 'Run the tests with `pnpm run test:unit` (passed in this workspace).'),
    ]);
    const res = await det(paths);
    const texts = (await entries(paths)).map((e) => e.text);
    expect(texts).toHaveLength(2);
    expect(texts.some((t) => /\bnpm run test:unit/.test(t))).toBe(false);
    expect(texts.some((t) => /Install the dependencies with `npm ci`/.test(t))).toBe(false);
    expect(res.superseded).toHaveLength(2);
    expect(res.removed).toHaveLength(2);
  });

  it('forgets rollouts beyond the newest N raw memories, with their files and the entries only they supported', async () => {
    const paths = await tempWorkspace();
    await writeRollout(paths, 'old', '2026-01-01T00:00:00Z', [raw('fact', 'Old lesson about the legacy `gulp` build.'), raw('fact', 'Shared lesson: the docs live in site/.')]);
    await writeRollout(paths, 'mid', '2026-02-01T00:00:00Z', [raw('fact', 'Shared lesson: the docs live in site/.')]);
    await writeRollout(paths, 'new', '2026-03-01T00:00:00Z', [raw('fact', 'Newest lesson: run `just check`.')]);
    const res = await det(paths, { ...CONFIG, maxRawMemories: 2 });
    expect(res.forgottenRollouts).toEqual(['old']);
    const es = await entries(paths);
    expect(es.map((e) => e.text).sort()).toEqual(['Newest lesson: run `just check`.', 'Shared lesson: the docs live in site/.']);
    expect(es.find((e) => e.text.startsWith('Shared'))!.sources).toEqual(['mid']);
    await expect(stat(paths.rawMemories('old'))).rejects.toThrow();
    await expect(stat(paths.rolloutSummary('old'))).rejects.toThrow();
    await expect(stat(paths.transcript('old'))).rejects.toThrow();
    expect((await loadState(paths.stateFile)).rollouts.old?.status).toBe('forgotten');
  });

  it('closes unfinished work that a later run completed', async () => {
    const paths = await tempWorkspace();
    await writeRollout(paths, 'r1', '2026-11-01T10:00:00Z', [raw('task_state', 'Unfinished (stopped at the turn limit): Add retries to the S3 upload client. Files changed so far: src/upload.ts.', 4)], { task: 'Add retries to the S3 upload client', outcome: 'max_turns' });
    await det(paths);
    expect((await entries(paths)).map((e) => e.kind)).toEqual(['task_state']);
    await writeRollout(paths, 'r2', '2026-11-02T10:00:00Z', [raw('fact', 'The upload client lives in src/upload.ts.')], { task: 'Finish the retries of the S3 upload client', outcome: 'completed' });
    await det(paths);
    expect((await entries(paths)).map((e) => e.kind)).toEqual(['fact']);
  });

  it('caps MEMORY.md and the summary by tokens, keeping whole entries by rank', async () => {
    const paths = await tempWorkspace();
    const words = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet', 'kilo', 'lima'];
    const many = Array.from({ length: 40 }, (_, i) => raw('fact', `Fact number ${i}: ${words[i % 12]}-${i} ${words[(i * 5) % 12]}${i} ${words[(i * 7 + 3) % 12]}x${i} ${i * 7}.`, i < 5 ? 5 : 1));
    await writeRollout(paths, 'r1', '2026-11-01T10:00:00Z', many);
    await det(paths, { ...CONFIG, memoryMdTokens: 600, summaryTokens: 200 });
    const md = await readFile(paths.memoryMd, 'utf8');
    const es = parseMemoryMd(md).entries;
    expect(es.length).toBeGreaterThan(4);
    expect(es.length).toBeLessThan(40);
    expect(Math.ceil(Buffer.byteLength(md) / 4)).toBeLessThanOrEqual(600);
    for (let i = 0; i < 5; i++) expect(es.some((e) => e.text.startsWith(`Fact number ${i}:`))).toBe(true);
    const sum = await readFile(paths.summaryMd, 'utf8');
    expect(Math.ceil(Buffer.byteLength(sum) / 4)).toBeLessThanOrEqual(200);
    expect(parseSummary(sum).entries.length).toBeGreaterThan(0);
  });

  it('a crash between writing MEMORY.md and the state does not turn mnemara\'s own text into a person\'s edit', async () => {
    const paths = await tempWorkspace();
    await writeRollout(paths, 'r1', '2026-11-01T10:00:00Z', [raw('fact', 'Lesson one is about the `make gen` target.')]);
    await det(paths);
    const state = JSON.parse(await readFile(paths.stateFile, 'utf8'));
    await writeRollout(paths, 'r2', '2026-11-02T10:00:00Z', [raw('fact', 'Lesson two: the CI image lacks `protoc`.')]);
    await det(paths);
    // Simulate the crash: the new MEMORY.md landed, the committed state did not (only the pending record).
    const after = JSON.parse(await readFile(paths.stateFile, 'utf8'));
    await writeFile(paths.stateFile, JSON.stringify({ ...state, pending: after.written }));
    await writeRollout(paths, 'r3', '2026-11-03T10:00:00Z', [raw('fact', 'Lesson three: `buf lint` runs in CI.')]);
    await det(paths);
    const es = await entries(paths);
    expect(es).toHaveLength(3);
    expect(es.some((e) => e.edited)).toBe(false);
  });
});
