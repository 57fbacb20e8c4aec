import { redact, redactDeep } from './redact.js';
import { configFormOfName, redactSecretKeys } from './secret-keys.js';

/**
 * `redact` for a file's whole text, read by what the file is, so that a redacted file is still the same kind of
 * document (the files of the memory layout, `memories/` and `sessions/`, before a snapshot reads them):
 * - a config file by its name (`secret-keys.ts`: `.yaml`, `.ini`, `.env`, `.properties`, `.npmrc`, `.netrc` …):
 *   every value under a secret-named key goes, a bare word included;
 * - a JSON document (`.json`, or any text that parses as JSON and starts with `{` or `[`): every string is
 *   redacted as a value (`redactDeep`: a string under a secret-named key goes whole), and the document is written
 *   back with its own indentation (two spaces, four, a tab, or compact) and final whitespace. Redacting the raw
 *   text instead let a rule take the closing `",` of a string as part of a value (the Chinese, Japanese and
 *   Korean "password is X" forms did), and `memories/.state.json` no longer parsed: no later session consolidated
 *   (issue 10, ninth trial). Escaped text inside strings (`\"`, `\n`) is seen decoded, as written. After the
 *   structural pass the text rules run once more over the result, kept only when it still parses (a secret in an
 *   object key);
 * - JSON lines (`.jsonl`, `.ndjson`, a transcript under `sessions/`): the same, line by line; a line that does not
 *   parse is redacted as text;
 * - anything else: `redact` over the text.
 * Returns `text` itself when nothing was found. Pure; never throws.
 */
export function redactFile(path: string, text: string): string {
  const form = configFormOfName(path);
  const asText = (t: string): string => {
    const clean = redact(t);
    return form ? redactSecretKeys(clean, form) : clean;
  };
  const lower = path.toLowerCase();
  if (lower.endsWith('.jsonl') || lower.endsWith('.ndjson')) {
    const lines = text.split('\n');
    const out = lines.map((line) => (line.trim() === '' ? line : redactJson(line, asText) ?? asText(line)));
    return out.every((l, i) => l === lines[i]) ? text : out.join('\n');
  }
  const looksJson = lower.endsWith('.json') || /^\s*[{[]/.test(text);
  return (looksJson ? redactJson(text, asText) : undefined) ?? asText(text);
}

/** `text` redacted as a JSON document (then by `asText` where that keeps it one), or undefined when it is not one. */
function redactJson(text: string, asText: (t: string) => string): string | undefined {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (doc === null || typeof doc !== 'object') return undefined;
  const clean = redactDeep(doc);
  const changed = JSON.stringify(clean) !== JSON.stringify(doc);
  const base = changed ? serializeLike(text, clean) : text;
  const raw = asText(base);
  if (raw !== base && parses(raw)) return raw;
  return base;
}

/** `value` serialized with the indentation and final newline of `original`. */
function serializeLike(original: string, value: unknown): string {
  const indent = /\n([ \t]+)["}\]]/.exec(original)?.[1];
  const body = JSON.stringify(value, null, indent && /\n/.test(original.trim()) ? indent : undefined);
  const trailing = /\s*$/.exec(original)?.[0] ?? '';
  return body + trailing;
}

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
