/**
 * The scripted model of the offline demo (and of the session tests). It is NOT Claude: it is a fixed
 * policy served by `test/support/messages-server.ts` over the real Messages wire format. It reacts to
 * the real tool results the session sends back (what the tests printed, what a file holds) and to the
 * real system prompt (whether the memory block already says how to run the tests), so the turns it
 * takes depend on what mnemara actually carried over.
 */
import {
  systemText,
  text,
  toolUse,
  turn,
  type RecordedRequest,
  type ScriptStepResult,
} from '../../test/support/messages-server.js';

/** One `str_replace` the policy makes once it has viewed the file (old text must occur exactly once). */
export interface PlannedEdit {
  path: string;
  oldStr: string;
  newStr: string;
}

/** What one scripted run does: the task it was written for, the edits that solve it, and its final words. */
export interface ScriptedTask {
  task: string;
  edits: PlannedEdit[];
  done: string;
}

const OBVIOUS_TESTS = 'python3 -m unittest discover tests';
const REAL_TESTS = './scripts/check.sh';
const EDITOR = 'str_replace_based_edit_tool';

/** Run 1: fix the bug that makes `parse_duration('1h30m')` return 1800. */
export const FIX_BUG: ScriptedTask = {
  task:
    "parse_duration('1h30m') returns 1800 instead of 5400. Find the bug in the durations library, fix it, " +
    'and make the test suite pass.',
  edits: [
    {
      path: '/workspace/src/durations/parse.py',
      oldStr: '        total = int(number) * UNITS[unit]',
      newStr: '        total += int(number) * UNITS[unit]',
    },
  ],
  done:
    'Fixed: parse_duration overwrote the running total for each unit (`total =` instead of `total +=`). ' +
    'All tests pass. Note: run the tests with `./scripts/check.sh` (it sets PYTHONPATH=src); ' +
    "`python3 -m unittest discover tests` fails with \"No module named 'durations'\".",
};

/** Run 2: a related task on the same library, where knowing how to run the tests saves turns. */
export const ADD_DAYS: ScriptedTask = {
  task: "Add a days unit to the durations library: parse_duration('2d') should return 172800. Add a test for it.",
  edits: [
    {
      path: '/workspace/src/durations/parse.py',
      oldStr: 'UNITS = {"h": 3600, "m": 60, "s": 1}',
      newStr: 'UNITS = {"d": 86400, "h": 3600, "m": 60, "s": 1}',
    },
    { path: '/workspace/src/durations/parse.py', oldStr: '_TOKEN = re.compile(r"(\\d+)([hms])")', newStr: '_TOKEN = re.compile(r"(\\d+)([dhms])")' },
    { path: '/workspace/src/durations/parse.py', oldStr: '_FULL = re.compile(r"(?:\\d+[hms])+")', newStr: '_FULL = re.compile(r"(?:\\d+[dhms])+")' },
    {
      path: '/workspace/tests/test_parse.py',
      oldStr: '    def test_all_units(self):',
      newStr:
        '    def test_days(self):\n        self.assertEqual(parse_duration("2d"), 172800)\n        self.assertEqual(parse_duration("1d1h"), 90000)\n\n    def test_all_units(self):',
    },
  ],
  done: 'Added the `d` unit (86400 s) to parse_duration and format_duration, with a test; `./scripts/check.sh` passes.',
};

interface Call {
  name: string;
  input: Record<string, unknown>;
  result: string;
  isError: boolean;
}

function flatten(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((c: { type?: string; text?: string }) => (c.type === 'text' ? (c.text ?? '') : '')).join('');
}

/** The tool calls made so far in the conversation, each paired with the result the session sent back. */
function history(req: RecordedRequest): Call[] {
  const messages: Array<{ role: string; content: unknown }> = req.body?.messages ?? [];
  const results = new Map<string, { text: string; isError: boolean }>();
  for (const m of messages) {
    if (m.role !== 'user' || !Array.isArray(m.content)) continue;
    for (const b of m.content as Array<{ type: string; tool_use_id: string; content?: unknown; is_error?: boolean }>) {
      if (b.type === 'tool_result') results.set(b.tool_use_id, { text: flatten(b.content), isError: b.is_error === true });
    }
  }
  const calls: Call[] = [];
  for (const m of messages) {
    if (m.role !== 'assistant' || !Array.isArray(m.content)) continue;
    for (const b of m.content as Array<{ type: string; id: string; name: string; input: Record<string, unknown> }>) {
      if (b.type !== 'tool_use') continue;
      const r = results.get(b.id);
      calls.push({ name: b.name, input: b.input, result: r?.text ?? '', isError: r?.isError ?? true });
    }
  }
  return calls;
}

const bash = (command: string): ScriptStepResult => turn(toolUse('bash', { command }));
const ranTests = (c: Call): boolean => c.name === 'bash' && String(c.input.command).includes(REAL_TESTS);
const passed = (output: string): boolean => /\nOK\b|^OK\b/m.test(output) && !/FAILED/.test(output);

/**
 * The policy: a function of the request, for `startMessagesServer(policy(task))`. Steps:
 * look up the memory (when the system prompt has a memory block), run the tests (the way memory says, else
 * the obvious way, then discover `scripts/check.sh` from the failure), view each file, make the edits
 * against the text it really saw, rerun the tests, and end with a summary or with what went wrong.
 */
export function policy(job: ScriptedTask): (req: RecordedRequest) => ScriptStepResult {
  return (req) => {
    const system = systemText(req);
    const calls = history(req);
    const last = calls.at(-1);
    const hasMemory = /MEMORY\.md/.test(system);
    const memoryLookup = calls.find((c) => c.name === 'bash' && String(c.input.command).startsWith('grep'));
    if (hasMemory && !memoryLookup) {
      return turn(text('Checking what earlier runs learned about this repository.'), toolUse('bash', { command: 'grep -n -i -E "test|check" memories/MEMORY.md' }));
    }
    const knowsTests = system.includes(REAL_TESTS) || (memoryLookup?.result.includes(REAL_TESTS) ?? false);
    const baseline = calls.find(ranTests);
    if (!baseline) {
      if (knowsTests) return turn(text(`Memory says the tests run with \`${REAL_TESTS}\`.`), toolUse('bash', { command: REAL_TESTS }));
      const obvious = calls.find((c) => c.name === 'bash' && c.input.command === OBVIOUS_TESTS);
      if (!obvious) return turn(text('Running the tests first.'), toolUse('bash', { command: OBVIOUS_TESTS }));
      if (!calls.some((c) => String(c.input.command).includes('cat scripts'))) {
        return turn(text('The tests cannot import the package. Is there a test script?'), toolUse('bash', { command: 'ls scripts && cat scripts/check.sh' }));
      }
      if (!last?.result.includes('PYTHONPATH=src')) return turn(text(`I could not find how to run the tests.\n${last?.result ?? ''}`));
      return bash(REAL_TESTS);
    }
    const viewed = (path: string): Call | undefined => calls.find((c) => c.name === EDITOR && c.input.command === 'view' && c.input.path === path);
    for (const edit of job.edits) {
      const view = viewed(edit.path);
      if (!view) return turn(toolUse(EDITOR, { command: 'view', path: edit.path }));
      const done = calls.some((c) => c.name === EDITOR && c.input.command === 'str_replace' && c.input.old_str === edit.oldStr && !c.isError);
      if (done) continue;
      const tried = calls.some((c) => c.name === EDITOR && c.input.command === 'str_replace' && c.input.old_str === edit.oldStr);
      if (tried || !view.result.includes(edit.oldStr.trim())) {
        return turn(text(`I expected to find \`${edit.oldStr.trim()}\` in ${edit.path} but it is not there; stopping.`));
      }
      return turn(toolUse(EDITOR, { command: 'str_replace', path: edit.path, old_str: edit.oldStr, new_str: edit.newStr }));
    }
    if (last && ranTests(last) && calls.indexOf(last) > calls.indexOf(baseline)) {
      return passed(last.result) ? turn(text(job.done)) : turn(text(`The tests still fail:\n${last.result.slice(-800)}`));
    }
    return bash(REAL_TESTS);
  };
}
