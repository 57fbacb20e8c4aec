import { EDITOR } from './edits.js';
import { SPLIT, isoTime, outputLooksFailed, type Draft, type ImportContext, type ImportEvent, type ImportSource, type Importer, type Probe } from './types.js';

/**
 * Aider chat histories (`.aider.chat.history.md`). Format from aider's `aider/io.py` (`InputOutput`:
 * `# aider chat started at <time>` opens each chat; `user_input` writes what the user typed as `#### ` lines;
 * `tool_output`/`tool_error` write aider's own output as `> ` quoted lines; the assistant's replies are written
 * as plain Markdown) and `aider/commands.py` (`/run` and `/test` run a shell command; its output follows as
 * `> ` lines). One file holds many chats: each is its own rollout. Aider records no exit status: a command's
 * `isError` is read from its output. An `Applied edit to <file>` line becomes an editor call on that file.
 * Nor does it record how a chat ended: only aider's Control-C warning (`^C again to exit`, `^C KeyboardInterrupt`,
 * from `Coder.keyboard_interrupt`) after the chat's last message marks it interrupted.
 */
const START = /^# aider chat started at (.+)$/;
const CONTROL_C = /^\^C (again to exit|KeyboardInterrupt)\s*$/m;

function detect(probe: Probe): boolean {
  return probe.kind === 'text' && (/^# aider chat started at /m.test(probe.head) || (/^#### /m.test(probe.head) && /^> /m.test(probe.head)));
}

type Block = { kind: 'user' | 'assistant' | 'output'; lines: string[]; line: number };

async function* read(src: ImportSource, ctx: ImportContext): AsyncGenerator<ImportEvent> {
  let block: Block | undefined;
  const s: State = { turn: 0, pendingRun: undefined, edits: 0, chats: 0, interrupted: false };
  const flush = function* (): Generator<ImportEvent> {
    if (block) yield* emit(block, ctx, s);
    block = undefined;
  };
  // Set before the SPLIT: the store closes the chat with the meta it has when the SPLIT comes.
  const endChat = () => {
    if (s.interrupted) ctx.meta.outcome = 'interrupted';
    s.interrupted = false;
  };
  for await (const { line, text, cut } of src.textLines()) {
    if (cut) {
      // Aider ends every line it writes: a last line without one was cut off mid-write.
      yield* flush();
      yield ctx.damaged({ line, bytes: Buffer.byteLength(text), reason: 'cut last line (no newline at end)', fragment: text.slice(0, 4096) });
      continue;
    }
    const start = START.exec(text);
    if (start) {
      yield* flush();
      endChat();
      if (s.chats > 0) yield SPLIT;
      s.chats += 1;
      s.turn = 0;
      ctx.meta.startedAt = isoTime(start[1]!.trim().replace(' ', 'T'));
      ctx.meta.idSeed = text;
      continue;
    }
    const kind: Block['kind'] = text.startsWith('#### ') || text === '####' ? 'user' : text.startsWith('> ') || text === '>' ? 'output' : 'assistant';
    const body = kind === 'user' ? text.slice(5) : kind === 'output' ? text.slice(2) : text;
    if (!block || block.kind !== kind) {
      yield* flush();
      block = { kind, lines: [], line };
    }
    block.lines.push(body);
  }
  yield* flush();
  endChat();
}

type State = { turn: number; pendingRun: string | undefined; edits: number; chats: number; interrupted: boolean };

function* emit(block: Block, ctx: ImportContext, s: State): Generator<ImportEvent> {
  const text = block.lines.join('\n').trim();
  if (!text) return;
  // A Control-C the chat went on after (a reply stopped, then a new request) did not end it.
  if (block.kind === 'output') s.interrupted ||= CONTROL_C.test(text);
  else s.interrupted = false;
  if (block.kind === 'user') {
    const run = /^\/(run|test)\s+([\s\S]+)$/.exec(text) ?? /^!\s*([\s\S]+)$/.exec(text);
    if (run) {
      const command = (run.length === 3 ? run[2] : run[1])!.trim();
      s.pendingRun = `run-${block.line}`;
      yield { type: 'tool_call', turn: s.turn, id: s.pendingRun, name: 'bash', input: { command } } as Draft;
      return;
    }
    s.pendingRun = undefined;
    const ask = /^\/(ask|code|architect)\s+([\s\S]+)$/.exec(text);
    if (!ask && text.startsWith('/')) {
      yield ctx.verbatim(`command:${text.split(/\s/)[0]}`, text, block.line);
      return;
    }
    yield { type: 'message', turn: s.turn, role: 'user', text: ask ? ask[2]! : text };
    return;
  }
  if (block.kind === 'assistant') {
    s.turn += 1;
    yield { type: 'message', turn: s.turn, role: 'assistant', text };
    return;
  }
  // Aider's own output: a command's output, edits applied, or status lines.
  if (s.pendingRun) {
    const output = text.replace(/\n?Add (the )?command output to the chat\?[^\n]*$/i, '');
    yield { type: 'tool_result', turn: s.turn, id: s.pendingRun, name: 'bash', output, isError: outputLooksFailed(output) };
    s.pendingRun = undefined;
    return;
  }
  const model = /^Model: (\S+)/m.exec(text);
  if (model) ctx.meta.model = model[1]!;
  const version = /^Aider v(\S+)/m.exec(text);
  if (version) ctx.meta.versions.aider = version[1]!;
  for (const m of text.matchAll(/^Applied edit to (.+)$/gm)) {
    const id = `edit-${block.line}-${(s.edits += 1)}`;
    yield { type: 'tool_call', turn: s.turn, id, name: EDITOR, input: { command: 'str_replace', path: m[1]!.trim() } };
    yield { type: 'tool_result', turn: s.turn, id, name: EDITOR, output: m[0], isError: false };
  }
  yield ctx.verbatim('aider output', text, block.line);
}

export const aiderImporter: Importer = { format: 'aider', title: 'Aider chat history (.aider.chat.history.md)', detect, read };
