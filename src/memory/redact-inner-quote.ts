/**
 * A YAML plain scalar with a quote inside it (`password: Quote"d#Pw_Re21`, re-trial of trial 21): the `name: value`
 * rule of `redact.ts` stops a bare value at a quote and judged `Quote` alone. Here the value is the whole run to the
 * line's end (or a ` #` comment), with no brackets (code's `opts["pw"]`) and with letters and digits in it.
 */
import { AFTER_ESCAPE } from './redact-boundaries.js';
import { isSecretName } from './secret-names.js';
import { isSecretValue } from './secret-values.js';

const RUN = `[^\\s\\[\\](){}<>\`$]`;
const INNER_QUOTE = new RegExp(
  `${AFTER_ESCAPE}(?<![A-Za-z0-9_."':\\\\-]))([A-Za-z_][A-Za-z0-9_.-]*)(:[ \\t]+)((?=\\S*[0-9])(?=\\S*[A-Za-z])[^\\s"'\\[\\](){}<>\`$]${RUN}*["']${RUN}+)(?=[ \\t]*(?:[ \\t]#.*)?(?:\\r?\\n|$))`,
  'gm',
);

/**
 * `text` with each such value under a name that says secret (`isSecretName`) and judged a secret by the loose
 * value rules (`isSecretValue`) replaced by `markerFor(name)`; each value replaced is passed to `onRedact`. Pure.
 */
export function redactInnerQuotes(text: string, markerFor: (name: string) => string, onRedact: (value: string) => void): string {
  if (!text.includes('"') && !text.includes("'")) return text;
  return text.replace(INNER_QUOTE, (m, name: string, sep: string, value: string) => {
    if (!isSecretName(name) || !isSecretValue(value, false)) return m;
    onRedact(value);
    return `${name}${sep}${markerFor(name)}`;
  });
}
