import type { NumberedRecord, TranscriptRecord } from '../../../src/transcript/schema.js';

/**
 * Builds a transcript in mnemara's own record format, step by step, numbered like the lines of
 * `sessions/<id>.jsonl`. Exit codes are real fields, as the transcript writer records them.
 */
export class TranscriptBuilder {
  private records: TranscriptRecord[] = [];
  private turn = 0;
  private n = 0;
  private readonly ts = '2026-03-01T10:00:00.000Z';

  constructor(task: string, meta: { system?: string; memoryBlock?: string; rolloutId?: string } = {}) {
    this.records.push({ type: 'session_meta', v: 1, ts: this.ts, rolloutId: meta.rolloutId ?? 'r-test', conversationId: 'c', task, model: 'm', source: 'mnemara', versions: {}, ...(meta.system ? { system: meta.system } : {}), ...(meta.memoryBlock ? { memoryBlock: meta.memoryBlock } : {}) });
    this.records.push({ type: 'message', v: 1, ts: this.ts, turn: 0, role: 'user', text: task });
  }

  say(text: string): this {
    this.turn += 1;
    this.records.push({ type: 'message', v: 1, ts: this.ts, turn: this.turn, role: 'assistant', text });
    return this;
  }

  user(text: string): this {
    this.records.push({ type: 'message', v: 1, ts: this.ts, turn: this.turn, role: 'user', text });
    return this;
  }

  bash(command: string, exitCode: number, output = ''): this {
    const id = `t${++this.n}`;
    this.turn += 1;
    this.records.push({ type: 'tool_call', v: 1, ts: this.ts, turn: this.turn, id, name: 'bash', input: { command } });
    this.records.push({ type: 'tool_result', v: 1, ts: this.ts, turn: this.turn, id, name: 'bash', output, isError: exitCode !== 0, exitCode, durationMs: 5 });
    return this;
  }

  edit(path: string, command: 'str_replace' | 'create' | 'view' = 'str_replace'): this {
    const id = `t${++this.n}`;
    this.turn += 1;
    this.records.push({ type: 'tool_call', v: 1, ts: this.ts, turn: this.turn, id, name: 'str_replace_based_edit_tool', input: { command, path, old_str: 'a', new_str: 'b' } });
    this.records.push({ type: 'tool_result', v: 1, ts: this.ts, turn: this.turn, id, name: 'str_replace_based_edit_tool', output: 'The file has been edited.', isError: false });
    return this;
  }

  /** Any other tool (e.g. the memory tool). */
  tool(name: string, input: Record<string, unknown>, output = 'ok'): this {
    const id = `t${++this.n}`;
    this.turn += 1;
    this.records.push({ type: 'tool_call', v: 1, ts: this.ts, turn: this.turn, id, name, input });
    this.records.push({ type: 'tool_result', v: 1, ts: this.ts, turn: this.turn, id, name, output, isError: false });
    return this;
  }

  end(outcome: 'completed' | 'max_turns' | 'budget' | 'error' | 'interrupted' = 'completed'): NumberedRecord[] {
    this.records.push({ type: 'session_end', v: 1, ts: this.ts, outcome, turns: this.turn, usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheCreationTokens: 0 }, wallMs: 1 });
    return this.records.map((record, i) => ({ line: i + 1, record }));
  }
}
