/**
 * The small front matter of memory files: a `---` line, `key: value` lines, a `---` line, then the body.
 * Values are written bare when that reads back unchanged, otherwise as a JSON string; so any string
 * (newlines, quotes, a leading space) round-trips. This is a YAML subset: YAML tools read it too.
 */

const BARE_RE = /^[A-Za-z0-9_./@+-][A-Za-z0-9_./@+:, -]*$/;

function renderValue(value: string): string {
  return BARE_RE.test(value) && !value.endsWith(' ') && !/: |:$| #/.test(value) ? value : JSON.stringify(value);
}

/** Renders `fields` (string values, in the given order) and `body` into one document. */
export function renderFrontMatter(fields: Record<string, string>, body: string): string {
  const lines = Object.entries(fields).map(([k, v]) => `${k}: ${renderValue(v)}`);
  return `---\n${lines.join('\n')}\n---\n${body}`;
}

/** Splits a document into its front matter fields and its body; `null` when it does not start with one. */
export function parseFrontMatter(text: string): { fields: Record<string, string>; body: string } | null {
  const src = text.replace(/^\uFEFF/, '').replace(/\r\n/g, '\n');
  if (!src.startsWith('---\n')) return null;
  const end = src.indexOf('\n---\n', 3);
  const endAtEof = src.endsWith('\n---') ? src.length - 4 : -1;
  const stop = end >= 0 ? end : endAtEof;
  if (stop < 0) return null;
  const fields: Record<string, string> = {};
  for (const line of src.slice(4, stop).split('\n')) {
    if (!line.trim() || line.trimStart().startsWith('#')) continue;
    const m = /^([A-Za-z_][A-Za-z0-9_-]*):[ \t]*(.*)$/.exec(line);
    if (!m) return null;
    const raw = m[2]!.trim();
    let value = raw;
    if (raw.startsWith('"')) {
      try {
        value = JSON.parse(raw) as string;
      } catch {
        return null;
      }
    }
    fields[m[1]!] = value;
  }
  return { fields, body: end >= 0 ? src.slice(end + 5) : '' };
}
