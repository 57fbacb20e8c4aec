import { describe, expect, it } from 'vitest';
import { extractDeterministic } from '../../src/memory/phase1/deterministic/index.js';
import { viewRollout } from '../../src/memory/phase1/rollout.js';
import { importAnthropicMessages } from '../../src/transcript/importers/anthropic-messages.js';

// New-user trial, second round (issue 12 item 6): a partial run is described by what ended it.
const unfinished = (doc: object) => {
  const records = importAnthropicMessages(doc, { startedAt: '2026-03-01T10:00:00.000Z' }).map((record, i) => ({ line: i + 1, record }));
  return extractDeterministic(viewRollout(records, 'r')).filter((m) => m.kind === 'task_state').map((m) => m.text);
};
const call = (id: string, command: string) => ({ role: 'assistant', content: [{ type: 'tool_use', id, name: 'bash', input: { command } }] });
const result = (id: string, out: string) => ({ role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: out }] });
const edit = { role: 'assistant', content: [{ type: 'tool_use', id: 'e', name: 'str_replace_based_edit_tool', input: { command: 'str_replace', path: '/workspace/cmd/sync.go', old_str: 'a', new_str: 'b' } }] };
const edited = { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'e', content: 'The file /workspace/cmd/sync.go has been edited.' }] };

describe('what ended a partial run', () => {
  it('the agent ended it with its own message: "stopped on purpose", never "the turn limit"', () => {
    const [t] = unfinished({
      outcome: 'partial', task: 'Add --progress to pell sync.',
      messages: [{ role: 'user', content: 'Add --progress to pell sync.' }, edit, edited, { role: 'assistant', content: 'Partly done: the flag is declared but not wired. I stopped to ask: should the bar count files or bytes?' }],
    });
    expect(t).toMatch(/^Unfinished \(the agent stopped on purpose\)/);
    expect(t).not.toMatch(/turn limit/);
  });

  it('cut off on a tool call: says the transcript does not tell what ended it', () => {
    const [t] = unfinished({ outcome: 'partial', messages: [{ role: 'user', content: 'Add --progress to pell sync.' }, edit, edited, call('t1', 'go build ./...'), result('t1', '[exit code: 0]')] });
    expect(t).toMatch(/^Unfinished \(interrupted: the transcript ends on a tool call/);
    expect(t).not.toMatch(/stopped at the turn limit/);
  });

  it('"failed" is read as fail, not refused', () => {
    const [t] = unfinished({ outcome: 'failed', messages: [{ role: 'user', content: 'Fix lint.' }, edit, edited, { role: 'assistant', content: 'Stopping here: the remaining finding needs a decision from the owning team.' }] });
    expect(t).toMatch(/^Unfinished \(the agent stopped on purpose\)/);
  });
});

describe('the file importer keeps what ended a partial run', () => {
  it('a partial run cut on a tool call, imported from a file, says the transcript does not tell why', async () => {
    const { mkdtemp, writeFile } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { importTranscriptFile } = await import('../../src/transcript/importers/index.js');
    const dir = await mkdtemp(join(tmpdir(), 'mnemara-outcome-'));
    const file = join(dir, 'cut.json');
    await writeFile(file, JSON.stringify({ outcome: 'partial', messages: [{ role: 'user', content: 'Add --progress.' }, edit, edited, call('t1', 'go build ./...'), result('t1', '[exit code: 0]')] }));
    const imported = await importTranscriptFile(file, {});
    const end = imported.records.map((r) => r.record).find((r) => r.type === 'session_end');
    expect(end).toMatchObject({ outcome: 'interrupted', error: expect.stringMatching(/ends on a tool call/) });
  });
});
