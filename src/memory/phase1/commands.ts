/**
 * Reads shell commands the agent ran (the `command` of a `bash` tool call) into segments and classifies
 * them, so that the deterministic extractor can anchor on structure rather than on wording: which
 * commands test, build or install, which install system packages, which only look around.
 */

import { categoryOf, type CommandCategory } from './command-category.js';

export type { CommandCategory };

export interface Segment {
  /** The segment as written, trimmed. */
  text: string;
  /** Without `sudo`, `time`, `env`, leading `VAR=value` and output plumbing (`2>&1`). */
  core: string;
  /** Program name (`npm`, `make`, `apt-get` …). */
  program: string;
  /** Program and its subcommand (`npm test`, `npm run test:unit`, `make gen`, `cmake --build`). */
  key: string;
  category: CommandCategory;
  sudo: boolean;
  /** `|` into this segment (it filters the previous one's output). */
  piped: boolean;
  /** The separator that came before it (`&&`, `||`, `;`, `|`, or '' for the first). */
  joiner: string;
}

/** Splits on `&&`, `||`, `;`, `|` and newlines outside quotes, `$( )` and `( )`; drops `cd`, `set`, `true`. */
export function splitCommand(command: string): Segment[] {
  const raw: Array<{ text: string; joiner: string }> = [];
  let cur = '';
  let quote: string | null = null;
  let depth = 0;
  let joiner = '';
  const push = (next: string): void => {
    if (cur.trim()) raw.push({ text: cur.trim(), joiner });
    cur = '';
    joiner = next;
  };
  for (let i = 0; i < command.length; i += 1) {
    const c = command[i]!;
    const two = command.slice(i, i + 2);
    if (quote) {
      if (c === '\\' && quote === '"') {
        cur += two;
        i += 1;
        continue;
      }
      if (c === quote) quote = null;
      cur += c;
      continue;
    }
    if (c === '"' || c === "'") {
      quote = c;
      cur += c;
      continue;
    }
    if (c === '(') depth += 1;
    if (c === ')') depth = Math.max(0, depth - 1);
    if (depth === 0 && (two === '&&' || two === '||')) {
      push(two);
      i += 1;
      continue;
    }
    if (depth === 0 && (c === ';' || c === '\n' || (c === '|' && command[i + 1] !== '|'))) {
      push(c === '\n' ? ';' : c);
      continue;
    }
    cur += c;
  }
  push('');
  const segments: Segment[] = [];
  for (const { text, joiner: j } of raw) {
    // `time (a | b)` and `( a && b )`: look inside the group.
    const group = /^(?:time\s+)?\((.*)\)$/s.exec(text);
    if (group) {
      const inner = splitCommand(group[1]!);
      if (inner[0]) inner[0] = { ...inner[0], joiner: j };
      segments.push(...inner);
      continue;
    }
    const seg = classify(text, j);
    if (seg) segments.push(seg);
  }
  return segments;
}


function classify(text: string, joiner: string): Segment | undefined {
  let core = text
    .replace(/\s+\d?>&\d\b/g, '')
    .replace(/\s+\d?>\s*\/dev\/null\b/g, '')
    .trim();
  let sudo = false;
  for (;;) {
    const m = /^(sudo(?:\s+-\S+)*|time|env|nice|nohup|command|exec|stdbuf(?:\s+-\S+)*|timeout\s+\S+|[A-Za-z_][A-Za-z0-9_]*=(?:"[^"]*"|'[^']*'|\S*))\s+/.exec(core);
    if (!m) break;
    if (m[1]!.startsWith('sudo')) sudo = true;
    core = core.slice(m[0].length);
  }
  const words = core.split(/\s+/);
  const program = (words[0] ?? '').replace(/^.*\//, '');
  if (!program || program === 'cd' || program === 'set' || program === 'true' || program === ':' || program === 'pushd' || program === 'popd') {
    return undefined;
  }
  const args = words.slice(1).filter((w) => !w.startsWith('-') || w === '--build');
  const first = args[0] ?? '';
  let key = first ? `${program} ${first}` : program;
  if ((program === 'npm' || program === 'pnpm' || program === 'yarn' || program === 'bun') && first === 'run' && args[1]) {
    key = `${program} run ${args[1]}`;
  }
  if (program === 'python' || program === 'python3') {
    const mod = /-m\s+(\S+)/.exec(core);
    if (mod) key = `${program} -m ${mod[1]}`;
  }
  return { text, core, program, key, category: categoryOf(program, args, core), sudo, piped: joiner === '|', joiner };
}

/** Segments that do the work (not inspection, not output filters, not version checks). */
export function workSegments(segments: Segment[]): Segment[] {
  return segments.filter((s) => !s.piped && s.category !== 'inspect' && !/^\S+\s+(--version|-v|-V|version)$/.test(s.core));
}

/** The segment a command is "about": the first of test/build/install/system/generate, else the first working one. */
export function mainSegment(segments: Segment[]): Segment | undefined {
  const work = workSegments(segments);
  return (
    work.find((s) => ['test', 'build', 'install', 'system', 'generate'].includes(s.category)) ??
    work.find((s) => s.category === 'env' || s.category === 'other') ??
    undefined
  );
}

/** System packages a segment installs (`apt-get install -y a b` → [a, b]); empty for anything else. */
export function systemPackages(seg: Segment): string[] {
  if (seg.category !== 'system') return [];
  const words = seg.core.split(/\s+/).slice(1);
  if (!words.some((w) => /^(install|add|-S\w*)$/.test(w))) return [];
  return words.filter((w) => !w.startsWith('-') && !/^(install|add)$/.test(w) && /^[a-z0-9][a-z0-9.+:=_-]*$/i.test(w));
}

/** Files a command writes with shell redirection, `tee` or `sed -i` (not /dev/null). */
export function filesWrittenBy(command: string): string[] {
  const out = new Set<string>();
  for (const m of command.matchAll(/(?:^|[^\d&>])>>?\s*(?!&)([^\s;&|<>()]+)/g)) {
    const target = m[1]!.replace(/^["']|["']$/g, '');
    if (target !== '/dev/null' && !target.startsWith('/dev/fd') && !target.startsWith('/tmp/')) out.add(target);
  }
  for (const m of command.matchAll(/\bsed\s+-i\S*\s+(?:'[^']*'|"[^"]*"|\S+)\s+([^\s;&|]+)/g)) out.add(m[1]!);
  for (const m of command.matchAll(/\btee\s+(?:-a\s+)?([^\s;&|]+)/g)) if (m[1] !== '/dev/null') out.add(m[1]!);
  return [...out];
}

/**
 * The command as a person would retype it: the main segment with the environment setup it depends on
 * (export, source, corepack, package lists), without `cd`, timing, output filters and trailing checks.
 */
export function essentialCommand(segments: Segment[], main: Segment | undefined = mainSegment(segments)): string {
  if (!main) return segments.map((s) => s.text).join(' && ');
  const idx = segments.indexOf(main);
  const keep: Segment[] = [];
  for (let i = 0; i < segments.length; i += 1) {
    const s = segments[i]!;
    if (s.piped) continue;
    if (i < idx && (s.category === 'env' || (s.category === 'system' && main.category === 'system'))) keep.push(s);
    else if (i === idx) keep.push(s);
    else if (i > idx && s.category === main.category && main.category === 'system') keep.push(s);
  }
  return keep.map((s) => s.text.replace(/\s+\d?>&\d\b/g, '')).join(' && ');
}
