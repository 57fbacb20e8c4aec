/**
 * The memory of `rememberingRedact` (redact-parts.ts): while `rememberInto` runs a redaction, every secret value a rule
 * replaces is noted in the caller's set, so later parts of the same document can have the value replaced where
 * it appears bare, and every file a token fragment was written to, so that later appends to it (the token's
 * rest, written by another command) go too. Kept apart from the rules so that they only call `remember`.
 */
import type { SecretKind } from './redact-kinds.js';

/** The set `remember` adds to while a `rememberInto` call runs (else null: nothing is noted). */
let remembered: Set<string> | null = null;

/** Notes a replaced value: only one long enough (8+ characters) that its later occurrences are not chance. */
export function remember(value: string): void {
  // A bare shell value runs up to a space, so `X=v; echo` gives `v;`.
  const v = value.trim().replace(/^["'`]|["'`]$/g, '').replace(/[;,&]+$/, '');
  if (remembered && v.length >= 8 && !v.includes('[REDACTED:')) remembered.add(v);
}

/** The map `rememberFragmentFile` adds to while a `rememberInto` call runs: a file's path as typed, the kind. */
let fragmentFiles: Map<string, SecretKind> | null = null;

/** Notes a file a token fragment was written to (`echo -n ghp_ab12 > /tmp/t`). */
export function rememberFragmentFile(path: string, kind: SecretKind): void {
  fragmentFiles?.set(path, kind);
}

/**
 * Runs `redact` (synchronous) with `remember` adding to `seen` and `rememberFragmentFile` to `files`; returns what
 * it returns.
 */
export function rememberInto<T>(seen: Set<string>, redact: () => T, files?: Map<string, SecretKind>): T {
  remembered = seen;
  fragmentFiles = files ?? null;
  try {
    return redact();
  } finally {
    remembered = null;
    fragmentFiles = null;
  }
}
