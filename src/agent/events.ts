import type { Outcome, Usage } from '../transcript/schema.js';

/**
 * What a run reports while it goes, for the CLI's progress display (nothing in `agent` prints).
 * `turn` is the 1-based model turn; times in ms; usage in tokens.
 */
export type AgentEvent =
  | { type: 'model_call_started'; turn: number }
  | { type: 'model_text'; turn: number; delta: string }
  | { type: 'model_call_ended'; turn: number; stopReason: string | null; usage: Usage; ms: number }
  | { type: 'tool_call_started'; turn: number; id: string; name: string; summary: string }
  | {
      type: 'tool_call_ended';
      turn: number;
      id: string;
      name: string;
      summary: string;
      isError: boolean;
      /** Commands only: the exit code (`null` when unknown). */
      exitCode?: number | null;
      ms: number;
    }
  | { type: 'run_ended'; outcome: Outcome; turns: number; usage: Usage; wallMs: number; error?: string };

/** A sink for {@link AgentEvent}s; it must not throw (a throwing listener is logged and ignored). */
export type OnAgentEvent = (event: AgentEvent) => void;
