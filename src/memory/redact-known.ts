/**
 * Secret values this process knows by their value, whatever their shape: the credential mnemara itself sends to
 * the model API (`ANTHROPIC_API_KEY`, `ANTHROPIC_AUTH_TOKEN`, `anthropic.apiKey`). A gateway's key has no
 * provider prefix, and gateways echo the key they refused ("key gw-live-… is not allowed for model …", twelfth
 * trial): that message reached the transcript, MEMORY.md and the summary every later run starts with. Every
 * `redact` replaces each known value wherever it appears, before any other rule.
 */

/** Known values; each at least `MIN_KNOWN_CHARS` long, so that replacing it cannot hit ordinary text by chance. */
const known = new Set<string>();
const MIN_KNOWN_CHARS = 12;

/** Registers `value` (e.g. the API key in use) as a secret to replace wherever it appears. Short values are ignored. */
export function knowSecretValue(value: string | undefined): void {
  const v = value?.trim();
  if (v && v.length >= MIN_KNOWN_CHARS && !v.includes('[REDACTED:')) known.add(v);
}

/** Forgets every registered value (tests). */
export function forgetKnownSecretValues(): void {
  known.clear();
}

/** `text` with every registered value replaced by `marker`. Pure when nothing is registered. */
export function redactKnownValues(text: string, marker: string): string {
  if (known.size === 0) return text;
  let out = text;
  for (const v of known) if (out.includes(v)) out = out.split(v).join(marker);
  return out;
}
