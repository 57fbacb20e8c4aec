/**
 * Tokens a run wrote base64-encoded into a file (`echo -n ghp_… | base64 > token.b64`, a k8s Secret manifest, a
 * `.dockerconfigjson`): the file-token scan (`secret-files.ts`) greps for provider prefixes, which base64 hides
 * (issue 10 trial). A prefix encodes to one of three fixed strings, by its offset in the encoded bytes modulo 3;
 * each becomes a grep alternative followed by enough base64 for a token's body, and the host decodes every match
 * (the prefix's first bytes put back) and runs the token rules on the text, so base64 data that only looks alike (images, integrity hashes, source
 * maps) is never reported.
 */
import type { SecretKind } from '../memory/redact.js';

/** Provider prefixes of the high-confidence token kinds that are long enough to encode to a telling string. */
export const PREFIXES = [
  'sk-ant-', 'sk-proj-', 'sk-svcacct-', 'ghp_', 'gho_', 'ghs_', 'ghu_', 'ghr_', 'github_pat_', 'xoxb-', 'xoxp-', 'xoxa-',
  'AIza', 'sk_live_', 'rk_live_', 'whsec_', 'glpat-', 'npm_', 'pypi-AgE', 'dckr_pat_', 'AGE-SECRET-KEY-1', 'AKIA', 'ASIA',
  'hooks.slack.com/', 'discord.com/api/webhooks/', 'gsk_', 'lin_api_', 'figd_', 'pplx-', 'xai-', 'sk_test_', 'rk_test_',
  'hvs.', 'hvb.', 'shpat_', 'shpss_', 'dop_v1_', 'glsa_', 'hf_',
];

const B64 = 'A-Za-z0-9+/';

/**
 * The characters of the base64 of `prefix` that do not depend on the bytes around it, when it starts at byte
 * offset `shift` (0–2) of a 3-byte group: base64 char i covers bits [6i, 6i+6) and the prefix bits [8·shift, 8·(shift+len)).
 */
export function stableBase64(prefix: string, shift: number): string {
  const bytes = Buffer.concat([Buffer.alloc(shift), Buffer.from(prefix, 'latin1')]);
  const b64 = bytes.toString('base64');
  const first = Math.ceil((8 * shift) / 6);
  const last = Math.floor((8 * bytes.length) / 6) - 1;
  return b64.slice(first, last + 1);
}

const escapeEre = (s: string): string => s.replace(/[.+*?^$()[\]{}|\\]/g, (c) => `\\${c}`);

/** Every prefix at every offset: its stable string and where that string starts in its prefix's encoding (chars). */
const FORMS = PREFIXES.flatMap((prefix) =>
  [0, 1, 2].map((shift) => ({ prefix, shift, stable: stableBase64(prefix, shift), first: Math.ceil((8 * shift) / 6) })),
);

/**
 * One ERE alternative per prefix and offset: the stable string and at least 16 more base64 characters (12 bytes of
 * a token's body; AWS key ids are 16). Kept apart from the token ERE: one grep with both alternations took 2.2× as
 * long on a real tree (axios with its dependencies, 354 MB), two greps 1.4×. Usable by grep -E.
 */
export const BASE64_TOKEN_ERE = [...new Set(FORMS.map((f) => f.stable))].map((stable) => `${escapeEre(stable)}[${B64}]{16,}`).join('|');

/**
 * What the base64 run `match` (a grep match of `BASE64_TOKEN_ERE`, which starts with a stable string) decodes to
 * where it starts with a provider prefix: for each prefix and offset whose stable string starts it, the run is
 * decoded from its first 4-char group boundary and the prefix bytes before that are put back. `[]` when no prefix
 * decodes. Pure.
 */
export function base64PrefixTexts(match: string): string[] {
  const texts: string[] = [];
  for (const { prefix, shift, stable, first } of FORMS) {
    if (!match.startsWith(stable)) continue;
    const off = (4 - (first % 4)) % 4;
    // Node decodes a last partial group too (the `=` padding is not part of the match).
    const run = match.slice(off);
    const k = ((first + off) / 4) * 3 - shift;
    if (k < 0 || k > prefix.length) continue;
    const text = prefix.slice(0, k) + Buffer.from(run, 'base64').toString('latin1');
    if (text.startsWith(prefix)) texts.push(text);
  }
  return texts;
}

/**
 * The token kinds in the base64 run `match`: each text `base64PrefixTexts` decodes (after a boundary) through
 * `kindsOf` (the scan's `tokenKinds`). `[]` when none decodes to a token. Pure.
 */
export function base64TokenKinds(match: string, kindsOf: (text: string) => SecretKind[]): SecretKind[] {
  return [...new Set(base64PrefixTexts(match).flatMap((text) => kindsOf(` ${text}`)))].sort();
}
