/**
 * Reads shell commands the agent ran (the `command` of a `bash` tool call) into segments and classifies
 * them, so that the deterministic extractor can anchor on structure rather than on wording: which
 * commands test, build or install, which install system packages, which only look around. Built on a
 * shell tokenizer (`shell-words.ts`), so the forms an agent really types — `bash scripts/check.sh`,
 * `cd /workspace && CI=1 timeout 60 npx vitest run 2>&1 | tail -20`, `sh -c '…'`, `bundle exec rspec` —
 * classify like their plain forms.
 */

import { categoryOf, positionalArgs, type CommandCategory } from './command-category.js';
import { tokenize, type ShellToken } from './shell-words.js';
import { unwrap } from './unwrap.js';
import { pushAll } from '../../config/arrays.js';

export type { CommandCategory };

export interface Segment {
  /** The segment as written, without `2>&1` and `>/dev/null` plumbing. */
  text: string;
  /** From the program on: without `sudo`, `time`, `timeout 60`, `env`, leading `VAR=value`, runners (`npx`, `bundle exec`) kept. */
  core: string;
  /** Program name (`npm`, `make`, `apt-get`; a script's file name: `check.sh`; `vitest` for `npx vitest`). */
  program: string;
  /** Words after the program, quotes removed. */
  args: string[];
  /** Program and its subcommand (`npm test`, `npm run test:unit`, `make gen`, `cmake --build`; a script's path: `scripts/check.sh`). */
  key: string;
  /**
   * The command in one form for comparing two ways of typing it: `bash scripts/check.sh -q`,
   * `./scripts/check.sh -q` and `/workspace/scripts/check.sh -q` are all `scripts/check.sh -q`.
   * `VAR=value` in front is kept (`CI=1 npm test` may not be `npm test`); sudo, timing and runners are not.
   */
  canonical: string;
  category: CommandCategory;
  /** The program is a file run by its path or an interpreter (`./scripts/check.sh`, `bash scripts/check.sh`). */
  script: boolean;
  sudo: boolean;
  /** `|` into this segment (it filters the previous one's output). */
  piped: boolean;
  /** The separator that came before it (`&&`, `||`, `;`, `|`, or '' for the first). */
  joiner: string;
  /** Its standard output goes to /dev/null (`> /dev/null`, `&>/dev/null`): nothing it printed can be read. */
  silenced?: boolean;
}

const SEPARATORS = new Set(['&&', '||', ';', ';;', '|', '|&', '&', '\n']);

/**
 * Splits on `&&`, `||`, `;`, `|`, `&` and newlines (outside quotes, `$( )` and here-documents), looks
 * inside `( … )` groups and `bash -c '…'`, and classifies each segment. Shell plumbing (`cd` to the
 * workspace root, `set`, `true`, `exit` …) is kept with category `shell`, so that `|| true` and
 * `set -o pipefail` can be seen; `workSegments` leaves it out.
 */
export function splitCommand(command: string, depth = 0): Segment[] {
  const tokens = tokenize(command);
  const groups: Array<{ tokens: ShellToken[]; joiner: string }> = [];
  let cur: ShellToken[] = [];
  let joiner = '';
  const push = (next: string): void => {
    if (cur.length === 0) return; // `a &&\n b`, `( a ) && b`: the joiner before stays
    groups.push({ tokens: cur, joiner });
    joiner = next;
    cur = [];
  };
  for (const t of tokens) {
    if (t.kind === 'op' && SEPARATORS.has(t.value)) {
      const sep = t.value === '\n' || t.value === ';;' || t.value === '&' ? ';' : t.value === '|&' ? '|' : t.value;
      if (cur.length === 0 && sep === ';') continue; // blank lines, `; ;`
      push(sep);
      continue;
    }
    if (t.kind === 'op') continue; // `(` `)`: a subshell runs the same commands
    cur.push(t);
  }
  push('');
  const segments: Segment[] = [];
  for (const g of groups) pushAll(segments, classify(command, g.tokens, g.joiner, depth));
  return segments;
}

/** Redirections that only move output around (`2>&1`, `>/dev/null`): left out of `text`. */
function isPlumbing(t: ShellToken): boolean {
  return t.kind === 'redirect' && (/^\d*>&\d*-?$|^>&\d$/.test(t.op ?? '') || t.value === '/dev/null');
}

function classify(source: string, tokens: ShellToken[], joiner: string, depth: number): Segment[] {
  const words = tokens.filter((t) => t.kind === 'word');
  const u = unwrap(words.map((w) => w.value));
  const hidden = new Set(u.noise.map((i) => words[i]));
  const text = tokens.filter((t) => !isPlumbing(t) && !hidden.has(t)).map((t) => t.raw).join(' ').trim();
  if (u.inner !== undefined && depth < 3) {
    // `bash -c 'npm test'`, `sh -lc "…"`: the string is the command.
    const inner = splitCommand(u.inner, depth + 1).map((s) => ({ ...s, sudo: s.sudo || u.sudo }));
    if (inner[0]) inner[0] = { ...inner[0], joiner };
    return inner;
  }
  const rest = words.slice(u.start);
  const coreText = rest.map((w) => w.raw).join(' ');
  const programWord = u.words[0] ?? '';
  const program = programWord.replace(/^.*\//, '');
  const args = u.words.slice(1);
  const script = u.script;
  const category: CommandCategory = !programWord
    ? 'shell'
    : asksOnly(args)
      ? 'inspect'
      : script !== undefined
      ? categoryOf(script, positionalArgs(program, args), coreText, true)
      : categoryOf(program, positionalArgs(program, args), coreText, false);
  const pos = positionalArgs(program, args);
  // A script that dispatches subcommands (`manage.py migrate` / `manage.py test`, `artisan key:generate`) is as
  // many commands as it has subcommands, like a tool (`cargo build` / `cargo test`): the subcommand is part of
  // its identity. A file or option after the script is not a subcommand.
  const sub = script !== undefined ? pos[0] : undefined;
  let key = script !== undefined ? (sub && /^[a-z][\w:-]*$/i.test(sub) ? `${script} ${sub}` : script) : pos[0] ? `${program} ${pos[0]}` : program;
  if (!script && ['npm', 'pnpm', 'yarn', 'bun'].includes(program) && /^run(-script)?$/.test(pos[0] ?? '') && pos[1]) key = `${program} run ${pos[1]}`;
  if (!script && /^python[\d.]*$/.test(program)) {
    const m = args.indexOf('-m');
    if (m >= 0 && args[m + 1]) key = `${program} -m ${args[m + 1]}`;
  }
  const canonicalProgram = script ?? program.replace(/^python[\d.]*$/, 'python');
  return [
    {
      text: text || source.trim(),
      core: coreText || text,
      program: program || (words[0]?.value ?? ''),
      args,
      key,
      canonical: [...u.assignments, canonicalProgram, ...args].join(' '),
      category: programWord ? (cdOrShell(program, args) ?? category) : 'shell',
      script: script !== undefined,
      sudo: u.sudo,
      piped: joiner === '|',
      joiner,
      ...(tokens.some((t) => t.kind === 'redirect' && /^1?>\|?$|^&>$/.test(t.op ?? '') && t.value === '/dev/null') ? { silenced: true } : {}),
    },
  ];
}

/** `cd` to the workspace root (or nowhere) is plumbing; `cd app` is part of how a command is run. */
function cdOrShell(program: string, args: string[]): CommandCategory | undefined {
  if (program === 'cd' || program === 'pushd') {
    const dir = (args[0] ?? '').replace(/\/+$/, '');
    return dir === '' || dir === '/workspace' || dir === '~' || dir === '.' || dir === '-' || dir === '$HOME' ? 'shell' : 'env';
  }
  return undefined;
}

/** Segments that do the work (not inspection, not shell plumbing, not output filters, not version checks). */
export function workSegments(segments: Segment[]): Segment[] {
  return segments.filter((s) => !s.piped && s.category !== 'inspect' && s.category !== 'shell' && !(s.args.length === 1 && /^(--version|-v|-V|version)$/.test(s.args[0]!)));
}

/** The segment a command is "about": the first of test/build/install/system/generate, else the first working one. */
export function mainSegment(segments: Segment[]): Segment | undefined {
  const work = workSegments(segments);
  return (
    work.find((s) => ['test', 'build', 'install', 'system', 'generate'].includes(s.category)) ??
    work.find((s) => (s.category === 'env' && s.program !== 'cd' && s.program !== 'pushd') || s.category === 'other') ??
    undefined
  );
}

/** System packages a segment installs (`apt-get install -y a b` → [a, b]); empty for anything else. */
export function systemPackages(seg: Segment): string[] {
  if (seg.category !== 'system') return [];
  const words = seg.args;
  if (!words.some((w) => /^(install|add|-S\w*)$/.test(w))) return [];
  return words.filter((w) => !w.startsWith('-') && !/^(install|add)$/.test(w) && /^[a-z0-9][a-z0-9.+:=_-]*$/i.test(w));
}

/** Files a command writes with shell redirection, `tee` or `sed -i` (not /dev/null, not /tmp). */
export function filesWrittenBy(command: string): string[] {
  const out = new Set<string>();
  const keep = (p: string) => p && p !== '/dev/null' && !p.startsWith('/dev/') && !p.startsWith('/tmp/');
  const tokens = tokenize(command);
  for (const t of tokens) if (t.kind === 'redirect' && /^\d*(>|>>|>\|)$|^&>>?$/.test(t.op ?? '') && keep(t.value)) out.add(t.value);
  for (const seg of splitCommand(command)) {
    if (seg.program === 'sed' && seg.args.some((a) => a.startsWith('-i'))) {
      const files = seg.args.filter((a) => !a.startsWith('-'));
      for (const f of files.slice(1)) if (keep(f)) out.add(f);
    }
    if (seg.program === 'tee') for (const f of seg.args.filter((a) => !a.startsWith('-'))) if (keep(f)) out.add(f);
    // `cp .env.example .env.test`, `mv`, `install -m 644 a b`, `ln -s a b`: the last operand is written.
    if (/^(cp|mv|install|ln)$/.test(seg.program)) {
      const operands = seg.args.filter((a) => !a.startsWith('-'));
      const target = operands.length >= 2 ? operands.at(-1)! : undefined;
      if (target && keep(target) && !target.endsWith('/')) out.add(target);
    }
  }
  return [...out];
}

/**
 * The command as a person would retype it: the main segment with the environment setup it depends on
 * (`cd app`, export, source, corepack, package lists), without `cd` to the root, timing, output filters
 * and trailing checks, in the form the agent typed it (so the form that worked is the one shown).
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
  return keep.map((s) => s.text).join(' && ');
}

/**
 * Arguments that only ask a tool what it is (`ansible-lint --version`, `go version`, `cmake --help`): such a
 * command checks and changes nothing, and its passing proves no fix.
 */
export function asksOnly(args: string[]): boolean {
  return args.length === 1 && /^(--version|-V|--help|-h|version|help)$/.test(args[0]!);
}

/** True when two segments run the same command, however typed (`bash x.sh` / `./x.sh`, `npx vitest` / `vitest`). */
export function sameCommand(a: Segment, b: Segment): boolean {
  return a.canonical === b.canonical;
}

/**
 * The segments of one command line (`segs`, from `splitCommand`) in front of `match` from which every join up
 * to it is `&&`: when `match` ran, each of them had run and exited 0. Empty when `match` is first or not in `segs`.
 */
export function andedBefore(segs: Segment[], match: Segment): Segment[] {
  const at = segs.indexOf(match);
  return at <= 0 ? [] : segs.slice(0, at).filter((_, k) => segs.slice(k + 1, at + 1).every((x) => x.joiner === '&&'));
}
