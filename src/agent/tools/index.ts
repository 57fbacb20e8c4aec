import { posix } from 'node:path';
import { ToolError } from '@anthropic-ai/sdk/lib/tools/ToolError';
import { toolErrorContent, type BetaRunnableTool } from '@anthropic-ai/sdk/lib/tools/BetaRunnableTool';
import type { Sandbox } from '../../sandbox/types.js';
import { SandboxError } from '../../sandbox/errors.js';
import { MnemaraError } from '../../config/errors.js';
import type { MemoryLayout } from '../../config/memory.js';
import { BashSession, bashDefinition } from './bash.js';
import { editorDefinition, runEditor } from './editor.js';
import { sandboxMemoryTool } from './memory.js';
import { portableBash, portableEditor, portableMemory, type ToolStyle } from './portable.js';
import { DEFAULT_TOOL_LIMITS, type ToolLimits, type ToolOutput } from './types.js';

export type { ToolLimits, ToolOutput } from './types.js';
export { DEFAULT_TOOL_LIMITS } from './types.js';
export { toolStyleFor, type ToolStyle } from './portable.js';

/** What one tool call did, kept for the transcript (keyed by the model's `tool_use` id). */
export interface ToolCallDetail {
  name: string;
  output: string;
  isError: boolean;
  /** Wall time of the call in ms, queueing excluded. */
  durationMs: number;
  exitCode?: number | null;
  timedOut?: boolean;
  truncated?: boolean;
}

export interface ToolboxOptions {
  sandbox: Sandbox;
  /** The memory tool (`memory_20250818`) is offered only when true. */
  liveUpdate: boolean;
  memoryLayout: MemoryLayout;
  /** `anthropic` (default): Anthropic's typed tools; `portable`: the same tools as JSON-schema tools (portable.ts). */
  style?: ToolStyle;
  limits?: ToolLimits;
  /** Once aborted, calls that have not started are answered "not run" (the one running finishes). */
  signal?: AbortSignal;
  /** Once aborted, the bash command running now is killed too (its process tree, as a timeout does). */
  stopSignal?: AbortSignal;
  /**
   * Applied to a call's whole input text before its one-line `summary` is cut from it (the run passes the
   * transcript's redaction): a summary cut or flattened first would split a secret (`ghp_ab\` ⏎ `cd…` becomes
   * `ghp_ab\ cd…`) where no rule can join it again. Default: the text as it is.
   */
  redact?: (text: string) => string;
  /** `summary`: one line, at most 80 characters, made from the redacted input (see `redact`). */
  onStart?: (call: { id: string; name: string; summary: string }) => void;
  onEnd?: (call: { id: string; detail: ToolCallDetail; summary: string }) => void;
}

/** The run's tools as SDK runnable tools, plus what each call did. */
export interface Toolbox {
  tools: BetaRunnableTool[];
  details: Map<string, ToolCallDetail>;
  /** Set once the sandbox stopped answering (container gone, engine down): the run cannot go on. */
  readonly lost: MnemaraError | undefined;
}

/**
 * Builds `bash` (`bash_20250124`), `str_replace_based_edit_tool` (`text_editor_20250728`) and, with
 * `liveUpdate`, `memory` (`memory_20250818`, via the SDK's `betaMemoryTool`), all executed through `sandbox`.
 * The model sees the workspace as `/workspace` and memory as `/memories` (the layout's memories folder).
 * Calls run one at a time in the model's order, whatever the SDK's runner does, because they share one
 * workspace. A failing call becomes an `is_error` result (a thrown `ToolError`); it never ends the run.
 */
export function createToolbox(options: ToolboxOptions): Toolbox {
  const { sandbox } = options;
  const redactText = options.redact ?? ((text: string): string => text);
  const limits = { ...DEFAULT_TOOL_LIMITS, ...stripUndefined(options.limits ?? {}) };
  const details = new Map<string, ToolCallDetail>();
  let tail: Promise<unknown> = Promise.resolve();
  let anonymous = 0;
  let lost: MnemaraError | undefined;

  // A sandbox failure inside a tool is reported to the model like any tool error, unless the sandbox itself
  // is gone; one `true` tells the two apart, so the run ends instead of feeding errors to the model.
  const checkAlive = async (err: SandboxError): Promise<void> => {
    const alive = await sandbox.exec('true', { timeoutMs: 10_000 }).then(
      (r) => r.exitCode === 0,
      () => false,
    );
    if (!alive) {
      lost = new MnemaraError('SANDBOX_LOST', `The sandbox stopped answering during the run: ${err.message}`, {
        hint: 'Check the Docker engine (docker ps -a, docker info); the transcript so far is kept on the host',
        cause: err,
      });
    }
  };

  const wrap = (
    definition: Omit<BetaRunnableTool, 'run' | 'parse'>,
    summarize: (input: unknown) => string,
    impl: (input: unknown) => Promise<ToolOutput>,
  ): BetaRunnableTool => {
    const name = (definition as { name: string }).name;
    const call = async (input: unknown, id: string): Promise<string> => {
      const summary = clip(redactText(summarize(input)));
      if (options.signal?.aborted) {
        const text = 'Not run: the run was interrupted before this tool call started.';
        details.set(id, { name, output: text, isError: true, durationMs: 0 });
        throw new ToolError(text);
      }
      options.onStart?.({ id, name, summary });
      const started = performance.now();
      let out: ToolOutput;
      try {
        out = await impl(input);
      } catch (err) {
        if (err instanceof SandboxError) await checkAlive(err);
        const content = toolErrorContent(err);
        out = { text: typeof content === 'string' ? content : JSON.stringify(content), isError: true };
      }
      const detail: ToolCallDetail = {
        name,
        output: out.text,
        isError: out.isError === true,
        durationMs: Math.round(performance.now() - started),
        ...(out.exec ? { exitCode: out.exec.exitCode, timedOut: out.exec.timedOut, truncated: out.exec.truncated } : {}),
      };
      details.set(id, detail);
      options.onEnd?.({ id, detail, summary });
      if (detail.isError) throw new ToolError(out.text);
      return out.text;
    };
    return {
      ...(definition as BetaRunnableTool),
      parse: (content: unknown) => content,
      run: (input: unknown, context) => {
        const id = context?.toolUse.id ?? `anonymous-${++anonymous}`;
        const p = tail.then(() => call(input, id));
        tail = p.catch(() => undefined);
        return p;
      },
    } as BetaRunnableTool;
  };

  const workspace = { virtual: '/workspace', realRoot: sandbox.workspaceDir };
  const bash = new BashSession(sandbox, limits, options.stopSignal);
  const portable = options.style === 'portable';
  const tools: BetaRunnableTool[] = [
    wrap(portable ? portableBash : bashDefinition, summarizeBash, (input) => bash.run(input)),
    wrap(portable ? portableEditor(limits.maxViewChars) : editorDefinition(limits.maxViewChars), summarizeFile, (input) =>
      runEditor({ sandbox, root: workspace, maxFileBytes: limits.maxEditFileBytes, maxViewChars: limits.maxViewChars }, input),
    ),
  ];
  if (options.liveUpdate) {
    const memory = sandboxMemoryTool({
      sandbox,
      root: { virtual: '/memories', realRoot: posix.join(sandbox.workspaceDir, options.memoryLayout.memoriesDir) },
      maxFileBytes: limits.maxMemoryFileBytes,
    });
    const { run, parse, ...definition } = memory;
    tools.push(
      wrap(portable ? portableMemory : definition, summarizeFile, async (input) => {
        const out = await run(parse(input));
        return { text: typeof out === 'string' ? out : JSON.stringify(out) };
      }),
    );
  }
  return {
    tools,
    details,
    get lost() {
      return lost;
    },
  };
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function clip(s: string, n = 80): string {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length > n ? `${one.slice(0, n - 1)}…` : one;
}

function summarizeBash(input: unknown): string {
  const i = (input ?? {}) as { command?: unknown; restart?: unknown };
  if (i.restart === true) return 'restart';
  return typeof i.command === 'string' ? i.command : '(no command)';
}

function summarizeFile(input: unknown): string {
  const i = (input ?? {}) as { command?: unknown; path?: unknown; old_path?: unknown; new_path?: unknown };
  const path = typeof i.path === 'string' ? i.path : typeof i.old_path === 'string' ? `${i.old_path} → ${String(i.new_path)}` : '';
  return `${String(i.command ?? '?')} ${path}`;
}
