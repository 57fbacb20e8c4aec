/**
 * Redaction of one document written in parts (a transcript, record by record), which remembers what it replaced.
 */
import type { SecretKind } from './redact-kinds.js';
import { redactAppendsTo } from './redact-fragments.js';
import { rememberInto } from './redact-remember.js';
import { redact } from './redact.js';

const marker = (kind: SecretKind): string => `[REDACTED:${kind}]`;

/**
 * A `redact` for one document written in parts (a transcript, record by record): every secret value a rule
 * replaced in an earlier part (an assignment, a client flag, a prose statement; 8 characters or more) is also
 * replaced wherever it appears later, bare — `export API_PASS=…` then `echo $API_PASS` prints the value with no
 * name beside it, where no rule can see it is secret; and a token's rest appended to the file an earlier part
 * wrote its fragment to (`echo -n ghp_ab12 > /tmp/t`, then `echo -n cd34… >> /tmp/t`). Values and paths are kept
 * in memory only, for the returned function's life. Pure otherwise; never throws.
 */
export function rememberingRedact(): (text: string) => string {
  const seen = new Set<string>();
  const files = new Map<string, SecretKind>();
  return (text: string): string => {
    if (!text) return text;
    let out = rememberInto(seen, () => redactAppendsTo(redact(text), files, marker), files);
    for (const value of seen) if (out.includes(value)) out = out.split(value).join(marker('secret'));
    return out;
  };
}
