/**
 * One transcript record as one JSONL line (with its `\n`). JSON.stringify leaves U+2028/U+2029 raw, and
 * readers that split on Unicode line terminators (Node 24's readline, some editors) then cut the record in
 * two; they are written as `\u2028`/`\u2029` escapes, which every JSON parser reads back unchanged.
 */
export function serializeRecord(record: unknown): string {
  return `${JSON.stringify(record).replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029')}\n`;
}
