/**
 * Trial 27 F3: an aider chat ending on the `/run` or `/test` that checked the edit was imported as
 * "interrupted" (it ends on a tool result), and each became an "Unfinished (interrupted)" lesson. A format
 * that records no outcome is interrupted only on its own marker (aider's Control-C) or a cut file.
 */
import { mkdir, mkdtemp, readFile, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { learnPaths } from '../../src/memory/learn.js';
import { memoryPaths } from '../../src/memory/layout.js';

const det = { extractor: 'deterministic' as const, config: { maxRawMemories: 256, memoryMdTokens: 8000, summaryTokens: 1500 } };

const chat = (at: string, task: string, tail: string[] = []) => [
  `# aider chat started at ${at}`,
  '',
  `#### ${task}`,
  '',
  'The header row is written after the first record. Move it before the loop:',
  '',
  'export.py',
  '```python',
  '<<<<<<< SEARCH',
  '    for row in rows:',
  '=======',
  '    writer.writerow(header)',
  '    for row in rows:',
  '>>>>>>> REPLACE',
  '```',
  '',
  '> Applied edit to export.py',
  '',
  '#### /run python -m pytest tests/test_export.py',
  '',
  '> ============================= test session starts ==============================',
  '> collected 3 items',
  '> tests/test_export.py ...                                                 [100%]',
  '> ============================== 3 passed in 0.05s ===============================',
  '',
  '#### /test make check',
  '',
  '> make check: all checks passed',
  ...tail,
  '',
];

async function learn(text: string): Promise<{ outcomes: string[]; memory: string }> {
  const tmp = await mkdtemp(join(tmpdir(), 'mnemara-aider-'));
  const ws = join(tmp, 'ws');
  await mkdir(join(tmp, 'tx'));
  await mkdir(ws);
  await writeFile(join(tmp, 'tx', '.aider.chat.history.md'), text);
  await learnPaths([join(tmp, 'tx')], ws, det);
  const sessions = memoryPaths(ws).sessionsDir;
  const outcomes: string[] = [];
  for (const f of (await readdir(sessions)).filter((n) => n.endsWith('.jsonl')).sort()) {
    const lines = (await readFile(join(sessions, f), 'utf8')).trim().split('\n');
    outcomes.push((JSON.parse(lines.at(-1)!) as { outcome: string }).outcome);
  }
  return { outcomes, memory: await readFile(memoryPaths(ws).memoryMd, 'utf8').catch(() => '') };
}

describe('aider chats: outcome', () => {
  it('two chats each ending on a passing /run and /test are completed, not unfinished work', async () => {
    const { outcomes, memory } = await learn(
      [...chat('2025-08-01 13:00:00', 'The CSV export drops the header row. Fix it.'), ...chat('2025-08-02 09:00:00', 'Add a --delimiter option to the CSV export.')].join('\n'),
    );
    expect(outcomes).toEqual(['completed', 'completed']);
    expect(memory).not.toMatch(/Unfinished/);
  });

  it('a chat that ends on aider\'s Control-C marker is interrupted; the chat before it is not', async () => {
    const { outcomes, memory } = await learn(
      [
        ...chat('2025-08-01 13:00:00', 'The CSV export drops the header row. Fix it.', ['', '> ^C again to exit', '', '#### Also quote every field.', '', 'Sure, set quoting=csv.QUOTE_ALL.']),
        ...chat('2025-08-02 09:00:00', 'Add a --delimiter option to the CSV export.', ['', '> ', '> ^C again to exit', '', '> ', '> ^C KeyboardInterrupt']),
      ].join('\n'),
    );
    expect(outcomes.sort()).toEqual(['completed', 'interrupted']);
    expect(memory).toMatch(/Unfinished \(interrupted\): Add a --delimiter option/);
    expect(memory).not.toMatch(/Unfinished \(interrupted\): The CSV export/);
  });

  it('a chat cut mid-line (no newline at the end of the file) is interrupted', async () => {
    const text = chat('2025-08-01 13:00:00', 'The CSV export drops the header row. Fix it.').join('\n').trimEnd() + '\n\n#### /run python -m pyt';
    expect((await learn(text)).outcomes).toEqual(['interrupted']);
  });
});
