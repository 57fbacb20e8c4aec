/**
 * The memory of `rememberingRedact` (redact.ts): while `rememberInto` runs a redaction, every secret value a rule
 * replaces is noted in the caller's set, so later parts of the same document can have the value replaced where
 * it appears bare. Kept apart from the rules so that they only call `remember`.
 */

/** The set `remember` adds to while a `rememberInto` call runs (else null: nothing is noted). */
let remembered: Set<string> | null = null;

/** Notes a replaced value: only one long enough (8+ characters) that its later occurrences are not chance. */
export function remember(value: string): void {
  // A bare shell value runs up to a space, so `X=v; echo` gives `v;`.
  const v = value.trim().replace(/^["'`]|["'`]$/g, '').replace(/[;,&]+$/, '');
  if (remembered && v.length >= 8 && !v.includes('[REDACTED:')) remembered.add(v);
}

/** Runs `redact` (synchronous) with `remember` adding to `seen`; returns what it returns. */
export function rememberInto<T>(seen: Set<string>, redact: () => T): T {
  remembered = seen;
  try {
    return redact();
  } finally {
    remembered = null;
  }
}
