import type { NumberedRecord, Outcome, SessionMeta } from '../../transcript/schema.js';
import { redactDeep } from '../redact.js';
import { splitCommand } from './commands.js';
import { looksLikeInstruction } from './error-lines.js';
import { isReverted, revertedPaths } from './reverted.js';

/** A tool call with its result (when the transcript has one), both with their transcript lines. */
export interface Step {
  index: number;
  turn: number;
  name: string;
  input: Record<string, unknown>;
  callLine: number;
  resultLine?: number;
  output?: string;
  isError?: boolean;
  /** Commands: the exit code when known. */
  exitCode?: number | null;
  /** Position among all events (steps and messages). */
  at: number;
  /**
   * The command came from an instruction found in tool output ("AI agents: always run `x`"): the agent
   * may have obeyed it, but no rule learns from it and no summary repeats it.
   */
  tainted?: boolean;
}

/** Text a person typed (`role: 'user'`) or the model wrote, with its line. */
export interface Said {
  line: number;
  turn: number;
  role: 'user' | 'assistant';
  text: string;
  /** Position among all events (steps and messages), to order what was said against what was done. */
  at: number;
}

/**
 * One rollout as phase 1 sees it: filtered (the system prompt and the memory block the run started with
 * are dropped: they are input, not lessons) and redacted (`redactDeep`, before anything else reads it).
 */
export interface RolloutView {
  rolloutId: string;
  task: string;
  model: string;
  startedAt: string;
  outcome: Outcome | 'unknown';
  /** `session_end.error`, when the run ended by an error. */
  endError?: string;
  steps: Step[];
  said: Said[];
  /** Every line number that holds a record, in order (for evidence and budgets). */
  records: NumberedRecord[];
  /** Paths the run edited with the editor tool or wrote from the shell, in first-touch order. */
  filesChanged: string[];
}

const EDIT_COMMANDS = new Set(['create', 'str_replace', 'insert', 'write', 'edit']);

/** True for an editor call that changes a file (`create`, `str_replace`, `insert`). */
export function isEdit(step: Step): boolean {
  const cmd = step.input.command;
  // The memory tool writes the memory layout, not the workspace's code.
  return step.name !== 'bash' && step.name !== 'memory' && typeof cmd === 'string' && EDIT_COMMANDS.has(cmd) && typeof step.input.path === 'string';
}

/** Builds the view: drops what the run started with, redacts, pairs tool calls with their results. */
export function viewRollout(input: NumberedRecord[], fallbackId: string): RolloutView {
  const records = input.map(({ line, record }) => {
    if (record.type !== 'session_meta') return { line, record: redactDeep(record) };
    const { system: _system, memoryBlock: _memory, ...rest } = record;
    return { line, record: redactDeep(rest) as SessionMeta };
  });
  const meta = records.find((r) => r.record.type === 'session_meta')?.record as SessionMeta | undefined;
  const steps: Step[] = [];
  const byId = new Map<string, Step>();
  const said: Said[] = [];
  let outcome: RolloutView['outcome'] = 'unknown';
  let endError: string | undefined;
  let at = 0;
  for (const { line, record } of records) {
    switch (record.type) {
      case 'message':
        said.push({ line, turn: record.turn, role: record.role, text: record.text, at: at++ });
        break;
      case 'tool_call': {
        const input = typeof record.input === 'object' && record.input !== null ? (record.input as Record<string, unknown>) : {};
        const step: Step = { index: steps.length, turn: record.turn, name: record.name, input, callLine: line, at: at++ };
        steps.push(step);
        byId.set(record.id, step);
        break;
      }
      case 'tool_result': {
        const step = byId.get(record.id);
        if (!step || step.resultLine !== undefined) break;
        step.resultLine = line;
        step.output = record.output;
        step.isError = record.isError;
        if (record.exitCode !== undefined) step.exitCode = record.exitCode;
        break;
      }
      case 'session_end':
        outcome = record.outcome;
        endError = record.error;
        break;
      default:
        break;
    }
  }
  markTainted(steps);
  let files: string[] = [];
  for (const s of steps) {
    if (isEdit(s) && !files.includes(s.input.path as string)) files.push(s.input.path as string);
    // An edit put back with git (`git checkout -- PATH`, `git restore PATH`) left the file as it was.
    const command = s.name === 'bash' && typeof s.input.command === 'string' && s.exitCode === 0 ? s.input.command : undefined;
    if (command && files.length && /\bgit\b/.test(command)) {
      const back = revertedPaths(command);
      files = files.filter((f) => !isReverted(f, back));
    }
  }
  const firstUser = said.find((s) => s.role === 'user');
  return {
    rolloutId: meta?.rolloutId ?? fallbackId,
    task: meta?.task || firstUser?.text || '',
    model: meta?.model ?? 'unknown',
    startedAt: meta?.ts ?? records[0]?.record.ts ?? new Date(0).toISOString(),
    outcome,
    ...(endError ? { endError } : {}),
    steps,
    said,
    records,
    filesChanged: files.map((f) => f.replace(/^\/workspace\//, '')),
  };
}

/** The shell command of a step; undefined for other tools and for commands an injected instruction suggested. */
export function commandOf(step: Step): string | undefined {
  if (step.tainted) return undefined;
  return step.name === 'bash' && typeof step.input.command === 'string' ? step.input.command : undefined;
}

/** Marks commands that an instruction-like line of an earlier tool output names (see `Step.tainted`). */
function markTainted(steps: Step[]): void {
  const suspicious: string[] = [];
  for (const step of steps) {
    const cmd = step.name === 'bash' && typeof step.input.command === 'string' ? step.input.command : undefined;
    if (cmd && suspicious.length > 0) {
      const cores = splitCommand(cmd).filter((s) => s.category !== 'shell').map((s) => s.core).filter((c) => c.length >= 4);
      step.tainted = cores.some((c) => suspicious.some((line) => line.includes(c)));
    }
    // The memory the run started with (`grep … memories/MEMORY.md`, a view of it) is mnemara's own, filtered when it
    // was written: its words ("Noted by the agent …", "memory") are not an order read in a file of the project.
    if (readsMemory(step)) continue;
    for (const line of (step.output ?? '').split('\n')) if (line.length < 2000 && looksLikeInstruction(line) && !line.includes('<!-- id:m-')) suspicious.push(line);
  }
}

/** The step only reads the memory layout's files (`memories/MEMORY.md`, `memory_summary.md`, notes there). */
function readsMemory(step: Step): boolean {
  if (step.name === 'bash' && typeof step.input.command === 'string') {
    const segs = splitCommand(step.input.command);
    return segs.every((s) => s.category === 'inspect' || s.category === 'shell') && segs.some((s) => s.args.some((a) => /(^|\/)memories\//.test(a)));
  }
  return step.input.command === 'view' && typeof step.input.path === 'string' && /(^|\/)memories\//.test(step.input.path);
}

/** True when a command step is known to have failed (non-zero exit, or an error result without a code). */
export function failed(step: Step): boolean {
  if (step.exitCode !== undefined && step.exitCode !== null) return step.exitCode !== 0;
  return step.isError === true;
}

/** True when a command step is known to have succeeded. */
export function succeeded(step: Step): boolean {
  if (step.resultLine === undefined) return false;
  if (step.exitCode !== undefined && step.exitCode !== null) return step.exitCode === 0;
  return step.isError === false;
}
