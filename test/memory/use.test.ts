import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import type { NumberedRecord, TranscriptRecord } from '../../src/transcript/schema.js';
import { parseMemoryMd } from '../../src/memory/memory-md.js';
import { consolidate } from '../../src/memory/phase2/index.js';
import { loadState, saveState } from '../../src/memory/state.js';
import { countMemoryUse, memoryMdWrites } from '../../src/memory/use.js';
import { CONFIG, raw, tempWorkspace, writeRollout } from './helpers.js';

const base = { v: 1 as const, ts: '2026-11-29T10:00:00Z', turn: 1 };
function numbered(records: TranscriptRecord[]): NumberedRecord[] {
  return records.map((record, i) => ({ line: i + 1, record }));
}
const layout = { memoriesDir: 'memories', sessionsDir: 'sessions' };

describe('countMemoryUse', () => {
  it('counts memory files looked at and the entries a targeted look showed', () => {
    const use = countMemoryUse(
      numbered([
        { type: 'tool_call', ...base, id: 'a', name: 'bash', input: { command: 'grep -n -i protoc memories/MEMORY.md' } },
        { type: 'tool_result', ...base, id: 'a', output: '12:- Put GOPATH/bin on PATH <!-- id:m-1a2b3c4d src:r1 -->', isError: false, exitCode: 0 },
        { type: 'tool_call', ...base, id: 'b', name: 'memory', input: { command: 'view', path: '/memories/rollout_summaries/r1.md' } },
        { type: 'tool_result', ...base, id: 'b', output: '# Rollout r1', isError: false },
        { type: 'tool_call', ...base, id: 'c', name: 'str_replace_based_edit_tool', input: { command: 'view', path: '/workspace/memories/MEMORY.md' } },
        { type: 'tool_result', ...base, id: 'c', output: Array.from({ length: 12 }, (_, i) => `- x <!-- id:m-0000000${i.toString(16)} -->`).join('\n'), isError: false },
        { type: 'tool_call', ...base, id: 'd', name: 'bash', input: { command: 'ls src' } },
        { type: 'tool_result', ...base, id: 'd', output: 'm-deadbeef', isError: false, exitCode: 0 },
        { type: 'message', ...base, role: 'assistant', text: 'Per memory m-feedf00d I will run make gen.' },
      ]),
      layout,
    );
    expect(use.files).toEqual({ 'MEMORY.md': 2, 'rollout_summaries/r1.md': 1 });
    expect(use.entries).toEqual({ 'm-1a2b3c4d': 1, 'm-feedf00d': 1 });
  });

  it('finds the lines where a run wrote MEMORY.md itself', () => {
    const records = numbered([
      { type: 'tool_call', ...base, id: 'a', name: 'memory', input: { command: 'view', path: '/memories/MEMORY.md' } },
      { type: 'tool_call', ...base, id: 'b', name: 'memory', input: { command: 'str_replace', path: '/memories/MEMORY.md', old_str: 'a', new_str: 'b' } },
      { type: 'tool_call', ...base, id: 'c', name: 'bash', input: { command: 'echo "- x" >> memories/MEMORY.md' } },
      { type: 'tool_call', ...base, id: 'd', name: 'bash', input: { command: 'grep -n npm memories/MEMORY.md' } },
      { type: 'tool_call', ...base, id: 'e', name: 'str_replace_based_edit_tool', input: { command: 'create', path: '/workspace/memories/notes.md', file_text: 'x' } },
    ]);
    expect(memoryMdWrites(records, layout)).toEqual([2, 3]);
  });

  it('feeds ranking: a used entry climbs above an equal one', async () => {
    const paths = await tempWorkspace();
    await writeRollout(paths, 'r1', '2026-11-01T10:00:00Z', [raw('fact', 'The staging database resets every night at 02:00 UTC.'), raw('fact', 'Screenshots for visual tests are stored under `tests/__snapshots__`.')]);
    await consolidate({ paths, config: CONFIG, mode: 'deterministic' });
    const before = parseMemoryMd(await readFile(paths.memoryMd, 'utf8')).entries;
    const second = before[1]!;
    const state = await loadState(paths.stateFile);
    state.uses[second.id] = 5;
    await saveState(paths.stateFile, state);
    await consolidate({ paths, config: CONFIG, mode: 'deterministic', force: true });
    const after = parseMemoryMd(await readFile(paths.memoryMd, 'utf8')).entries;
    expect(after[0]!.id).toBe(second.id);
  });
});
