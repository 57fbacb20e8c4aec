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

/**
 * Registers `value` (e.g. the API key in use) as a secret to replace wherever it appears. Values shorter than
 * `minChars` (default 12) are ignored; a person naming a value by hand (`mnemara memory redact`) may go down to
 * `MIN_NAMED_CHARS`.
 */
export function knowSecretValue(value: string | undefined, minChars = MIN_KNOWN_CHARS): void {
  const v = value?.trim();
  if (v && v.length >= Math.max(minChars, MIN_NAMED_CHARS) && !v.includes('[REDACTED:')) known.add(v);
}

/** The shortest value a person may name as a secret by hand: shorter ones would hit ordinary words. */
export const MIN_NAMED_CHARS = 6;

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
