/**
 * Nested configuration in a note, flattened to the dotted one-line form the injection filter's rules read
 * (`sandbox.network=host`): YAML by indentation, TOML and INI tables, JSON objects and YAML flow mappings
 * (`sandbox: {network: host}`), on several lines or joined onto one (MEMORY.md joins a bullet's indented lines
 * with spaces), inline code marks (`` `[sandbox]` `network = "host"` ``) read through. Only keys that end up with a dot in their path
 * are returned: a top-level `key: value` is already in the text as written.
 */
export interface FlatSetting {
  /** Where the block (or the pair) starts in the text, for the warning check. */
  at: number;
  /** `path.to.key=value`, quotes taken off the value. */
  line: string;
}

const KEY = String.raw`(?:"[^"\n]{1,60}"|'[^'\n]{1,60}'|[A-Za-z_$][\w$.-]{0,60})`;
const unquote = (s: string): string => s.trim().replace(/^(['"`])(.*)\1$/, '$2');
const cleanValue = (v: string): string => unquote(v.replace(/\s+#.*$/, '').replace(/[,;]$/, ''));

/** Offsets of each line's start. */
function lineStarts(text: string): number[] {
  const out = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === '\n') out.push(i + 1);
  return out;
}

/** YAML nesting by indentation, and TOML / INI `[table]` headers with `key = value` lines under them. */
function fromLines(text: string): FlatSetting[] {
  const out: FlatSetting[] = [];
  const lines = text.split('\n');
  const starts = lineStarts(text);
  let stack: { indent: number; key: string; at: number }[] = [];
  let table: { path: string; at: number } | null = null;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.replace(/^\s*[-*+]\s+(?=\S+\s*:)/, (m) => ' '.repeat(m.length)).replace(/\r$/, '');
    if (!/\S/.test(line) || /^\s*(?:#|\/\/|;|`{3}|~{3})/.test(line)) continue;
    const header = /^\s*\[{1,2}\s*([\w.'" -]+?)\s*\]{1,2}\s*$/.exec(line);
    if (header) {
      table = { path: header[1]!.split('.').map((p) => unquote(p)).join('.'), at: starts[i]! };
      stack = [];
      continue;
    }
    const pair = new RegExp(String.raw`^(\s*)(${KEY})\s*([:=])\s*(.*)$`).exec(line);
    if (!pair) {
      // Prose ends a table and a YAML mapping alike.
      if (!/^\s/.test(line)) {
        table = null;
        stack = [];
      }
      continue;
    }
    const indent = pair[1]!.length;
    const key = unquote(pair[2]!);
    const value = pair[4]!.trim();
    if (table && (pair[3] === '=' || (indent === 0 && value !== ''))) {
      if (value !== '') out.push({ at: table.at, line: `${table.path}.${key}=${cleanValue(value)}` });
      continue;
    }
    if (pair[3] !== ':') continue;
    while (stack.length && stack.at(-1)!.indent >= indent) stack.pop();
    const path = [...stack.map((s) => s.key), key].join('.');
    if (value === '' || value === '|' || value === '>') {
      stack.push({ indent, key, at: stack[0]?.at ?? starts[i]! });
      continue;
    }
    if (path.includes('.') && !value.startsWith('{')) out.push({ at: stack[0]?.at ?? starts[i]!, line: `${path}=${cleanValue(value)}` });
  }
  return out;
}

/**
 * A mapping joined onto one line: `sandbox: network: host model: baseUrl: https://h` (keys that open a mapping
 * are followed by another key at once) and `[sandbox] network = "host"`.
 */
function fromJoined(text: string): FlatSetting[] {
  const out: FlatSetting[] = [];
  const chain = new RegExp(String.raw`(?<![\w.:/-])((?:${KEY}\s*:\s+){1,4})(${KEY})\s*:\s+(\$\{\{[^}\n]*\}\}|"[^"\n]*"|'[^'\n]*'|[^\s,;]+)`, 'g');
  for (const m of text.matchAll(chain)) {
    const keys = [...m[1]!.matchAll(new RegExp(`(${KEY})\\s*:`, 'g'))].map((k) => unquote(k[1]!));
    out.push({ at: m.index, line: `${[...keys, unquote(m[2]!)].join('.')}=${cleanValue(m[3]!)}` });
  }
  const table = new RegExp(String.raw`\[\s*([\w.-]+)\s*\]((?:\s+${KEY}\s*=\s*(?:"[^"\n]*"|'[^'\n]*'|[^\s,;\[]+))+)`, 'g');
  for (const m of text.matchAll(table)) {
    for (const p of m[2]!.matchAll(new RegExp(String.raw`(${KEY})\s*=\s*("[^"\n]*"|'[^'\n]*'|[^\s,;\[]+)`, 'g'))) {
      out.push({ at: m.index, line: `${m[1]}.${unquote(p[1]!)}=${cleanValue(p[2]!)}` });
    }
  }
  return out;
}

/** JSON (or JSON5-like) objects, nested, on one line or several: each `"key": value` under the keys that hold it. */
function fromObjects(text: string): FlatSetting[] {
  const out: FlatSetting[] = [];
  // A value is never a key (`e2e: sandbox: {…}` is prose before a mapping): it may not end with a colon.
  const token = new RegExp(String.raw`(${KEY})\s*:\s*(\{|\[|"[^"\n]*"|'[^'\n]*'|[^\s,}\]]+(?<!:)(?![^\s,}\]]))|\}|\{|\]`, 'g');
  const stack: (string | null)[] = [];
  let start = -1;
  for (const m of text.matchAll(token)) {
    if (m[0] === '{' || m[0] === '[' || m[2] === '{' || m[2] === '[') {
      if (stack.length === 0) start = m.index;
      // `Config:` on the line before an object is prose, no key of it.
      stack.push(m[1] && (stack.length > 0 || !m[0].includes('\n')) ? unquote(m[1]) : null);
      continue;
    }
    if (m[0] === '}' || m[0] === ']') {
      stack.pop();
      continue;
    }
    if (stack.length === 0) continue;
    const key = unquote(m[1]!);
    const path = [...stack.filter((k): k is string => k !== null), key].join('.');
    if (path.includes('.')) out.push({ at: start, line: `${path}=${cleanValue(m[2]!)}` });
  }
  return out;
}

/** Every nested setting of the text in dotted form; none when the text holds no nesting. */
export function flattenConfig(text: string): FlatSetting[] {
  if (!/[{[]|:\s|\n\s/.test(text)) return [];
  // Inline code marks are no part of the config: `` `[sandbox]` `network = "host"` `` and `` `sandbox: {network:
  // host}` `` are read without them (the same length, so offsets stay). Fences (three or more) are kept.
  const t = text.replace(/(?<!\x60)\x60(?!\x60)/g, ' ');
  const seen = new Set<string>();
  return [...fromLines(t), ...fromJoined(t), ...fromObjects(t)].filter((s) => !seen.has(s.line) && (seen.add(s.line), true));
}
