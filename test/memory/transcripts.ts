import type { TranscriptRecord } from '../../src/transcript/schema.js';

/** A small mnemara transcript built from steps, for pipeline tests. */
export function transcript(rolloutId: string, steps: Array<{ cmd: string; output: string; exit: number } | { user: string } | { say: string }>, task = 'Fix the bug'): string {
  const ts = '2026-11-29T10:00:00.000Z';
  const base = { v: 1 as const, ts };
  const records: TranscriptRecord[] = [
    { type: 'session_meta', ...base, rolloutId, conversationId: rolloutId, task, model: 'claude-test', source: 'mnemara', versions: {} },
    { type: 'message', ...base, turn: 0, role: 'user', text: task },
  ];
  let turn = 1;
  for (const [i, s] of steps.entries()) {
    if ('cmd' in s) {
      records.push({ type: 'tool_call', ...base, turn, id: `t${i}`, name: 'bash', input: { command: s.cmd } });
      records.push({ type: 'tool_result', ...base, turn, id: `t${i}`, name: 'bash', output: s.output, isError: s.exit !== 0, exitCode: s.exit, durationMs: 10 });
      turn++;
    } else if ('user' in s) records.push({ type: 'message', ...base, turn, role: 'user', text: s.user });
    else records.push({ type: 'message', ...base, turn, role: 'assistant', text: s.say });
  }
  records.push({ type: 'session_end', ...base, outcome: 'completed', turns: turn, usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheCreationTokens: 0 }, wallMs: 1000 });
  return records.map((r) => JSON.stringify(r)).join('\n') + '\n';
}
