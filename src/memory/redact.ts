/**
 * Secret redaction, in code (issue 5, point 1). Applied to a transcript before any model sees it and to every
 * memory file before it is written. A secret is replaced by `[REDACTED:<kind>]`; for `NAME=value`-style
 * assignments the name is kept and only the value goes, so memory can still say "GITHUB_TOKEN is set".
 *
 * Two families of rules:
 * - token shapes that are secret wherever they appear (provider prefixes, JWTs, PEM private keys, URL passwords);
 * - values assigned to a name that looks secret (`PASSWORD`, `SECRET`, `TOKEN`, `API_KEY`, …) in env/shell
 *   (`NAME=value`), YAML/headers (`NAME: value`), JSON (`"name": "value"`) and CLI flags (`--token value`).
 *
 * Redaction is idempotent (`redact(redact(x)) === redact(x)`), and deliberately leaves ordinary code alone:
 * git hashes, UUIDs, sha256 digests and paths have none of the shapes below.
 */

/**
 * The version of the rules below. Raise it with every change that redacts more: the memory pipeline then
 * re-redacts, once, the files an older mnemara wrote into a memory layout (`redact-files.ts`).
 */
export const REDACTION_VERSION = 22;

import type { SecretKind } from './redact-kinds.js';

export type { SecretKind };

const marker = (kind: SecretKind): string => `[REDACTED:${kind}]`;

import { CLIENT_RULES, CLIENT_TRIGGER, META_IN_WORD, isClientSecret, isCurlSegment } from './redact-clients.js';
import { redactArgs, redactPrintfFormats } from './redact-args.js';
import { BASE64_RUN, HEX_RUN, decodeBase64Text, decodeHexText, isHighEntropyValue, isWordy, redactWrappedBase64 } from './redact-encoded.js';
import { redactEscapes, redactFragments } from './redact-fragments.js';
import { joinAwsSecret, joinContinuations, joinSplitTokens, joinToLength } from './redact-joins.js';
import { redactPositional } from './redact-positional.js';
import { redactInnerQuotes } from './redact-inner-quote.js';
import { redactProse } from './redact-prose.js';
import { remember } from './redact-remember.js';
import { redactHidden } from './redact-views.js';
import { SECRET_QUERY_PARAM, URL_PATH_KEY, URL_WITH_PATH, redactPathKeys } from './redact-urls.js';
import { redactKeyBlankValue, redactSpacedAssignments } from './redact-spaced.js';
import { redactPairs } from './redact-pairs.js';
import { redactExpressionLiterals } from './redact-expression-literals.js';
import { redactAwsSecretBesideId } from './redact-aws.js';
import { isSecretName } from './secret-names.js';
import { LOCAL_HOST, isDevDefault } from './redact-dev-defaults.js';
import { AFTER_ESCAPE, insideWord, REDACTED_RE } from './redact-boundaries.js';
import { redactKnownValues } from './redact-known.js';
import { redactSplitPrefixes } from './redact-split-prefix.js';
import { redactCookies } from './redact-cookies.js';
import { redactHexDumps } from './redact-hexdump.js';
import { isTallyCount } from './redact-tally.js';
import { isSecretValue } from './secret-values.js';
import { redactConfigText } from './secret-keys.js';

export { isDevDefault, isSecretName };


interface ShapeRule {
  kind: SecretKind;
  re: RegExp;
  /** Replacement for one match; default: the whole match becomes the marker. */
  replace?: (match: string, ...groups: string[]) => string;
}

// Boundary that is not part of a token: a letter or digit. `_` and `-` occur inside tokens, but each shape whose
// body holds them takes them greedily, and before a prefix they join words (`leak-ghp_….txt`, `MY_sk_live_…`):
// counting them as token characters kept a token in a file name whole.
const B = '(?<![A-Za-z0-9])';
const E = '(?![A-Za-z0-9])';

/** Token shapes, in order: the longest, most specific first (a PEM block may contain anything). */
const SHAPES: ShapeRule[] = [
  {
    kind: 'private_key',
    // Up to the END line, or to the end of the text when the block was cut: a half key is still a key.
    re: /-----BEGIN ((?:[A-Z0-9]+ )*)PRIVATE KEY( BLOCK)?-----[\s\S]*?(?:-----END \1PRIVATE KEY\2-----|$)/g,
  },
  {
    kind: 'url_password',
    // scheme://user:password@host — keep scheme, user and host.
    re: /\b([a-z][a-z0-9+.-]*:\/\/[^\s:@/"'`<>]*:)([^\s@/"'`<>]+)(@)(?=([^\s"'`<>]*))/gi,
    replace: (m, pre: string, pw: string, at: string, host: string) =>
      REDACTED_RE.test(pw) || pw.startsWith('$') || (isDevDefault(pw) && LOCAL_HOST.test(host)) ? m : `${pre}${marker('url_password')}${at}`,
  },
  {
    kind: 'url_password',
    // scheme://TOKEN@host (a Sentry DSN's key, `https://<token>@github.com`): a user part that is a random token.
    re: /\b([a-z][a-z0-9+.-]*:\/\/)([A-Za-z0-9_-]{20,})(@)(?=[A-Za-z0-9.-])/gi,
    replace: (m, pre: string, user: string, at: string) => (/[0-9]/.test(user) && /[A-Za-z]/.test(user) ? `${pre}${marker('url_password')}${at}` : m),
  },
  { kind: 'anthropic_key', re: new RegExp(`${B}sk-ant-[A-Za-z0-9_-]{16,}${E}`, 'g') },
  {
    kind: 'openai_key',
    // `sk-`, `sk-proj-`, `sk-svcacct-`, `sk-admin-`: long, and never made of letters alone.
    re: new RegExp(`${B}sk-(?:proj-|svcacct-|admin-)?(?=[A-Za-z0-9_-]*[0-9])[A-Za-z0-9_-]{20,}${E}`, 'g'),
  },
  { kind: 'aws_access_key_id', re: new RegExp(`${B}(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|ANPA|AIPA)[A-Z0-9]{16}${E}`, 'g') },
  { kind: 'github_token', re: new RegExp(`${B}(?:ghp|gho|ghs|ghu|ghr)_[A-Za-z0-9]{30,}${E}`, 'g') },
  { kind: 'github_token', re: new RegExp(`${B}github_pat_[A-Za-z0-9_]{30,}${E}`, 'g') },
  { kind: 'slack_webhook', re: /https:\/\/hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9_/-]+/g },
  { kind: 'slack_token', re: new RegExp(`${B}xox[abposrce]-[A-Za-z0-9-]{10,}${E}`, 'g') },
  { kind: 'google_api_key', re: new RegExp(`${B}AIza[0-9A-Za-z_-]{30,}${E}`, 'g') },
  { kind: 'stripe_key', re: new RegExp(`${B}(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,}${E}`, 'g') },
  { kind: 'stripe_key', re: new RegExp(`${B}whsec_[A-Za-z0-9]{20,}${E}`, 'g') },
  // GitLab's prefixed tokens (personal, deploy, runner, trigger, OAuth, CI job, feed …).
  { kind: 'gitlab_token', re: new RegExp(`${B}gl(?:pat|dt|rt|ptt|soat|cbt|ft|imt|oas|agent|ffct)-[A-Za-z0-9_-]{20,}${E}`, 'g') },
  { kind: 'npm_token', re: new RegExp(`${B}npm_[A-Za-z0-9]{30,}${E}`, 'g') },
  { kind: 'huggingface_token', re: new RegExp(`${B}hf_[A-Za-z0-9]{30,}${E}`, 'g') },
  { kind: 'pypi_token', re: new RegExp(`${B}pypi-AgE[A-Za-z0-9_-]{50,}${E}`, 'g') },
  { kind: 'sendgrid_key', re: new RegExp(`${B}SG\\.[A-Za-z0-9_-]{16,}\\.[A-Za-z0-9_-]{30,}${E}`, 'g') },
  { kind: 'jwt', re: new RegExp(`${B}eyJ[A-Za-z0-9_-]{8,}\\.eyJ[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]*${E}`, 'g') },
  { kind: 'vault_token', re: new RegExp(`${B}hv[sbr]\\.[A-Za-z0-9_-]{20,}${E}`, 'g') },
  { kind: 'docker_hub_token', re: new RegExp(`${B}dckr_pat_[A-Za-z0-9_-]{20,}${E}`, 'g') },
  // Also inside the Bot API's URL path (`/bot123456789:AA…/getMe`), where a letter comes right before the id.
  { kind: 'telegram_bot_token', re: /(?<![0-9])\d{8,10}:AA[A-Za-z0-9_-]{30,}/g },
  { kind: 'discord_webhook', re: /https:\/\/(?:ptb\.|canary\.)?discord(?:app)?\.com\/api\/webhooks\/\d+\/[A-Za-z0-9_-]+/g },
  { kind: 'age_secret_key', re: new RegExp(`${B}AGE-SECRET-KEY-1[0-9A-Z]{50,}${E}`, 'g') },
  // The long tail of prefixed provider tokens: Shopify, DigitalOcean, Grafana, Sentry, Databricks, Groq, Postman,
  // Linear, Doppler, New Relic, Atlassian, Supabase, PlanetScale, Pulumi, Figma, Notion, Replicate, Perplexity,
  // xAI, Twilio API keys, Mailgun, Razorpay, JFrog.
  {
    kind: 'provider_token',
    re: new RegExp(
      `${B}(?:shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}|dop_v1_[a-f0-9]{64}|glsa_[A-Za-z0-9_]{32,}|glc_[A-Za-z0-9+/=_-]{32,}|sntry[su]_[A-Za-z0-9+/=_-]{40,}|dapi[a-f0-9]{32}|gsk_[A-Za-z0-9]{40,}|PMAK-[a-f0-9]{24}-[a-f0-9]{34}|lin_api_[A-Za-z0-9]{40}|dp\\.(?:pt|st|sa|ct|scim|audit)\\.[A-Za-z0-9]{40,}|NRAK-[A-Z0-9]{27}|ATATT3[A-Za-z0-9_=-]{50,}|sbp_[a-f0-9]{40}|pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.-]{32,}|pul-[a-f0-9]{40}|figd_[A-Za-z0-9_-]{40,}|(?:secret|ntn)_[A-Za-z0-9]{43,}|r8_[A-Za-z0-9]{37}|pplx-[A-Za-z0-9]{40,}|xai-[A-Za-z0-9]{60,}|SK[0-9a-f]{32}|key-[0-9a-f]{32}|rzp_(?:live|test)_[A-Za-z0-9]{14,}|AKCp[A-Za-z0-9]{60,})${E}`,
      'g',
    ),
  },
  {
    kind: 'bearer_token',
    // `Authorization: Bearer <t>`, `Basic <b64>`, `token <t>`: keep the scheme word. The value is on the same
    // line: a URL ending in `/token` is not a scheme for the key on the next line.
    re: /\b(Bearer|Basic|Token)([ \t]+)([A-Za-z0-9._~+/=-]{16,})/gi,
    replace: (m, scheme: string, sp: string, value: string) =>
      REDACTED_RE.test(value) || !/[0-9]/.test(value) ? m : `${scheme}${sp}${marker('bearer_token')}`,
  },
  {
    kind: 'password',
    // `curl -u user:password`, `curl --user=user:password`, `http -a user:password`: keep the user. Only in a
    // curl/httpie command (see isCurlSegment), since `-u 1000:1000` means a uid:gid to docker.
    // The value may end where a string around the whole command closes (`echo "curl -u deploy:X"`).
    re: /(\s(?:-u|--user|-a|--auth)(?:\s+|=)?)(["']?)([^\s:"'$-][^\s:"'$]*):([^\s"'@]+)\2(?=[\s"'`]|$)/g,
    replace: (m, pre: string, q: string, user: string, pw: string, offset: string, whole: string) =>
      REDACTED_RE.test(pw) || pw.startsWith('$') || !isCurlSegment(whole, Number(offset)) ? m : `${pre}${q}${user}:${marker('password')}${q}`,
  },
  {
    kind: 'secret',
    // A header given in quotes (`curl -H "X-Api-Key: v"`, `--header 'PRIVATE-TOKEN: v'`): the quote hides it
    // from the `NAME: value` rule below, which does not start inside quoted strings.
    re: /((?:-H|--header)(?:\s+|=)(["']))([A-Za-z][A-Za-z0-9_-]*)(:[ \t]*)([^"'\n]+)\2/g,
    replace: (m, pre: string, q: string, name: string, sep: string, value: string) =>
      isSecretName(name) && !value.includes('[REDACTED:') && isSecretValue(value, false) ? `${pre}${name}${sep}${marker(assignmentKind(name))}${q}` : m,
  },
  {
    kind: 'secret',
    // A credential in a URL's query or fragment (`?access_token=…`, `&sig=…`, `#id_token=…`), wherever the URL
    // is: the URL may itself be the value of a name that says nothing (`CALLBACK=https://…?token=…`), which the
    // assignment rules then take whole and leave.
    re: /([?&#])([A-Za-z_][A-Za-z0-9_.-]*)=([^\s&#"'`<>]+)/g,
    replace: (m, sep: string, name: string, value: string) =>
      (isSecretName(name) || SECRET_QUERY_PARAM.test(name)) && isSecretValue(value, false) ? `${sep}${name}=${marker(assignmentKind(name))}` : m,
  },
  {
    kind: 'secret',
    // A key in a URL's path, where RPC and API providers put it (`https://eth-mainnet.example.com/v2/<key>`,
    // `…/v3/<32 hex>`, `…/key/<key>`), wherever the URL is: under `RPC_URL`, in `--fork-url`, in a log line.
    re: URL_PATH_KEY,
    replace: (m, pre: string, key: string) => (isWordy(key) && !/^[0-9a-f]{32,}$/i.test(key) ? m : `${pre}${marker('secret')}`),
  },
  {
    kind: 'secret',
    // The same without a marker before it: a key right after the host or after a chain's name (trial and blind
    // corpus: an RPC URL in `.env` output reached a stored transcript).
    re: URL_WITH_PATH,
    replace: (m) => redactPathKeys(m, marker('secret'), isWordy),
  },
];

function assignmentKind(name: string): SecretKind {
  return /pass/i.test(name) ? 'password' : 'secret';
}

// Value: quoted string, or a run without whitespace/quotes; a backslash escape (`\n` in serialized JSON) or a
// backslash-newline continuation (joined beforehand when it hides a secret: joinContinuations) ends it,
// and so does a shell metacharacter that ends the word (see META_IN_WORD in redact-clients.ts): `X=v; echo`, `X=v|tee`,
// `$(X=v)`, `X=v&&next`, and a `;` or `&` that starts the next assignment (`AccountName=x;AccountKey=…`,
// `?user=a&password=…`), or a `,` that starts the next option (`-o password=…,uid=1000`). Inside a word (`pa;ss` at the end of a `.env` line) they stay part of the value.
const BARE = `((?:[^\\s"'\`\\\\;&|)<>,]|${META_IN_WORD}|,(?![A-Za-z_][A-Za-z0-9_.-]*=)|\\\\(?![nrt"\\\\\\r\\n]))+)`;
const VALUE = `(?:"((?:[^"\\\\\\n]|\\\\.)*)"|'([^'\\n]*)'|${BARE})`;
const NAME = '([A-Za-z_][A-Za-z0-9_.-]*)';

/** `NAME=value`, `export NAME="value"`, `--password=value`. */
const ASSIGN_EQ = new RegExp(`${AFTER_ESCAPE}(?<![A-Za-z0-9_.\\\\]))${NAME}([ \\t]?=[ \\t]?)${VALUE}`, 'g');
/** `NAME: value` (YAML, HTTP headers, Python dict literal without quotes on the key). */
const ASSIGN_COLON = new RegExp(`${AFTER_ESCAPE}(?<![A-Za-z0-9_."':\\\\-]))${NAME}(:(?!:)[ \\t]*)${VALUE}`, 'g');
/**
 * The same at the start of a quoted string (`echo "signing_key: …" >> app.yml`, `printf 'token: …\\n'`): the rule
 * above does not start after a quote, where a JSON key or a string of code is. Only a bare value, ending at the
 * string's own quote.
 */
const ASSIGN_COLON_QUOTED = new RegExp(`(?<=(?:^|[\\s(=[,{])["'])${NAME}(:(?!:)[ \\t]*)${BARE}`, 'gm');
/**
 * JSON inside a JSON string (`\"name\": \"value\"`, as in a serialized tool output), then plain JSON and
 * Python (`"name": "value"`, `'name': 'value'`). The escaped form goes first: the plain form would swallow it.
 */
const ASSIGN_JSON_ESCAPED = /(\\")([A-Za-z_][A-Za-z0-9_.-]*)\\"(\s*:\s*)(\\")((?:(?!\\")[^\n])*)\\"/g;
const ASSIGN_JSON = /(["'])([A-Za-z_][A-Za-z0-9_.-]*)\1(\s*:\s*)(["'])((?:\\.|(?!\4)[^\\\n])*)\4/g;
/**
 * `NAME=\"value\"` inside JSON-escaped text (a serialized command: `{"command":"export DB_PASSWORD=\"…\""}`), at
 * any depth of escaping (`\\\"`): the quote closing the value is escaped like the one opening it. Group 1 is empty
 * (the name is not quoted) so that `jsonPair` renders it.
 */
const ASSIGN_EQ_ESCAPED = /(?<![A-Za-z0-9_.])()([A-Za-z_][A-Za-z0-9_.-]*)(\s?=\s?)(\\+["'])((?:(?!\\)[^\n"'])*)\4/g;
/** `--token value`, `--password value`, `-p` is too ambiguous to touch. */
const ASSIGN_FLAG = /(--[A-Za-z][A-Za-z0-9-]*)([ \t]+)("[^"\n]*"|'[^'\n]*'|[^\s"'`;&|)<>-][^\s"'`;&|)<>]*)/g;

/**
 * `colon`: the `name: value` form, which in code is a type annotation or a keyword argument, so a bare
 * identifier there is not a secret. The same holds for `name = value` with spaces (code, not a `.env` line).
 */
function replaceAssignment(colon: boolean) {
  return (m: string, name: string, sep: string, dq?: string, sq?: string, bare?: string, offset?: number, whole?: string): string => {
    const value = dq ?? sq ?? bare ?? '';
    if (isTallyCount(name, value, whole ?? m, offset ?? 0)) return m;
    // In code (`$password = ConvertTo-SecureString 'X' -AsPlainText`) a bare word given an argument is a command or
    // call, not the value: its literal is redactExpressionLiterals' to judge.
    if (bare !== undefined && /\s/.test(sep) && /^[ \t]+["'(]/.test((whole ?? '').slice((offset ?? 0) + m.length))) return m;
    if (!isSecretName(name)) {
      if (!isHighEntropyValue(name, value)) return m;
      const q = dq !== undefined ? '"' : sq !== undefined ? "'" : '';
      return `${name}${sep}${q}${marker('high_entropy')}${q}`;
    }
    const codeLike = colon || /\s/.test(sep);
    if (!isSecretValue(value, codeLike && dq === undefined && sq === undefined)) return m;
    remember(value);
    const quote = dq !== undefined ? '"' : sq !== undefined ? "'" : '';
    return `${name}${sep}${quote}${marker(assignmentKind(name))}${quote}`;
  };
}

/**
 * SHAPES as run. A leading lookbehind (`B`) keeps V8 from scanning for the rule's literal prefix (`sk-ant-`,
 * `ghp_`), which made each such rule cost a pass over every position of the text; without it the regex finds
 * the prefix fast and the character before the match is checked here instead. Only for rules whose tokens hold
 * no `.` or other separator where a second token could start inside a rejected match.
 */
const COMPILED_SHAPES = SHAPES.map((rule) => {
  const lead = rule.re.source.startsWith(B) && !/\\\.|[+/=]/.test(rule.re.source) && !rule.replace;
  return { rule, re: lead ? new RegExp(rule.re.source.slice(B.length), rule.re.flags) : rule.re, checkBefore: lead };
});

/** The token-shape rules (SHAPES) over `text`. */
function applyShapes(text: string): string {
  let out = text;
  for (const { rule, re, checkBefore } of COMPILED_SHAPES) {
    out = out.replace(re, (m: string, ...rest: unknown[]) => {
      if (checkBefore && insideWord(String(rest.at(-1)), Number(rest.at(-2)))) return m;
      if (!rule.replace) return marker(rule.kind);
      const groups = rest.slice(0, -2).map((g) => (typeof g === 'string' ? g : ''));
      // The match's offset and the whole text come last, for rules that look around the match.
      return rule.replace(m, ...groups, String(rest.at(-2)), String(rest.at(-1)));
    });
  }
  return out;
}

/**
 * Returns `text` with every secret replaced by `[REDACTED:<kind>]`. Pure; never throws; idempotent.
 * Works on plain text, shell output, `.env` files, YAML, JSON text and serialized JSONL lines.
 */
export function redact(text: string): string {
  if (!text) return text;
  text = redactKnownValues(text, marker('secret'));
  // A token cut by a line break is joined first, unless the part before the break is a whole token by itself
  // (then the next line is something else: two keys listed one a line); then any word continued with a backslash
  // whose joined form holds a secret.
  const isWhole = (head: string): boolean => /^\[REDACTED:[a-z_]+\]$/.test(applyShapes(head));
  // A bare prefix apart from its body (on the next line, or "ghp_ plus …" in prose): replaced here, not joined, so
  // the check below (a join that redacted nothing is undone) does not undo it.
  text = redactSplitPrefixes(text, (token) => (isWhole(token) ? applyShapes(token) : null));
  const joined = joinSplitTokens(joinToLength(joinAwsSecret(text), isWhole), isWhole);
  // Last, config documents (a `cat` of an INI file, a heredoc's body), where a bare word under a secret key is a value.
  const continued = joinContinuations(joined, redactJoined);
  const out = redactConfigText(redactJoined(continued));
  // A join is made for a secret it shows; one that led to no redaction at all only changed the text (a line
  // break and quotes gone from prose: `…staple".` ⏎ `"and more"` read as code's concatenation). Never kept.
  return out === continued && continued !== text ? redactConfigText(redactJoined(text)) : out;
}

/** `redact` without the joining of split tokens: every rule over `text` as it is. */
function redactJoined(text: string): string {
  const tokenRules = (decoded: string): string => redactFragments(applyShapes(decoded), marker);
  // Escapes first: `ghp_ab\cd…` must be read whole before the shapes take its head alone; so must a token cut by
  // ANSI colour codes, zero-width characters or a percent escape, and one a printf format puts together.
  let out = redactHidden(text, tokenRules);
  out = redactEscapes(out, tokenRules);
  // The secret beside an access key id before the fragments, which would read it as the id's appended rest.
  out = redactFragments(redactAwsSecretBesideId(applyShapes(out), marker('secret'), remember), marker);
  // After the fragments: a format that only passes a fragment on to a file (`printf '%s' ghp_ab12 > f`) is theirs.
  out = redactPrintfFormats(out, applyShapes);
  const jsonPair = (m: string, q: string, name: string, sep: string, vq: string, value: string): string => {
    if (isSecretName(name) && isSecretValue(value, false)) {
      remember(value);
      return `${q}${name}${q}${sep}${vq}${marker(assignmentKind(name))}${vq}`;
    }
    return isHighEntropyValue(name, value) ? `${q}${name}${q}${sep}${vq}${marker('high_entropy')}${vq}` : m;
  };
  out = redactExpressionLiterals(out, (name) => marker(assignmentKind(/pw$/i.test(name) ? 'password' : name)), remember);
  // Before the `NAME: value` rule, which reads grep's `secrets.h:4:#define …` as a value under `secrets.h`.
  out = redactSpacedAssignments(out, (name) => marker(assignmentKind(name)), remember);
  out = redactPairs(out, (name) => marker(assignmentKind(name)), remember);
  out = out.replace(ASSIGN_JSON_ESCAPED, jsonPair);
  out = out.replace(ASSIGN_JSON, jsonPair);
  out = out.replace(ASSIGN_EQ_ESCAPED, jsonPair);
  out = out.replace(ASSIGN_EQ, replaceAssignment(false));
  out = redactInnerQuotes(out, (name) => marker(assignmentKind(name)), remember);
  out = out.replace(ASSIGN_COLON, replaceAssignment(true));
  const colon = replaceAssignment(true);
  out = out.replace(ASSIGN_COLON_QUOTED, (m, name: string, sep: string, bare: string, offset: number, whole: string) => colon(m, name, sep, undefined, undefined, bare, offset, whole));
  out = out.replace(ASSIGN_FLAG, (m, flag: string, sp: string, value: string) => {
    if (!isSecretName(flag.replace(/^--/, ''))) return m;
    const bare = value.replace(/^["']|["']$/g, '');
    if (!isSecretValue(bare, false)) return m;
    remember(bare);
    const q = /^["']/.test(value) ? value[0] : '';
    return `${flag}${sp}${q}${marker(assignmentKind(flag))}${q}`;
  });
  for (const rule of CLIENT_TRIGGER.test(out) ? CLIENT_RULES : []) {
    // A command may give several (`ssh-keygen -p -P OLD -N NEW`); each pass takes the first one left.
    for (let pass = 0, before = ''; pass < 4 && before !== out; pass++) {
      before = out;
      out = out.replace(rule.re, (m: string, ...groups: unknown[]) => {
        const value = String(groups[rule.value - 1] ?? '');
        const bare = value.replace(/^["']|["']$/g, '');
        if (!isClientSecret(bare)) return m;
        remember(bare);
        return m.slice(0, m.length - value.length) + marker('password');
      });
    }
  }
  out = redactKeyBlankValue(out, (name) => marker(assignmentKind(name)), remember);
  out = redactCookies(out, marker('secret'));
  out = redactPositional(out, marker('password'), isClientSecret, remember);
  out = redactArgs(out, marker('password'), isClientSecret, isSecretName, remember);
  const holdsSecret = (decoded: string): boolean => redactShapes(decoded) !== decoded;
  out = redactWrappedBase64(out, holdsSecret, marker('base64_secret'));
  out = out.replace(BASE64_RUN, (m: string) => {
    const decoded = decodeBase64Text(m);
    return decoded !== null && holdsSecret(decoded) ? marker('base64_secret') : m;
  });
  out = redactHexDumps(out, marker('hex_secret'), (decoded) => redactShapes(decoded) !== decoded);
  out = out.replace(HEX_RUN, (m: string) => {
    const decoded = decodeHexText(m);
    return decoded !== null && redactShapes(decoded) !== decoded ? marker('hex_secret') : m;
  });
  return redactProse(out);
}

/**
 * Only the token shapes (no prose or base64) and plain assignments: what a decoded base64 run is checked against.
 * A shape with its own replacement applies it (a URL's password, unless a local dev default): skipping those kept
 * the base64 of `postgres://admin:…@db` (trial 22 F6).
 */
function redactShapes(text: string): string {
  let out = text;
  for (const rule of SHAPES) out = rule.replace ? out.replace(rule.re, rule.replace) : out.replace(rule.re, marker(rule.kind));
  return out.replace(ASSIGN_EQ, replaceAssignment(false));
}

/**
 * Redacts every string inside a JSON-like value (objects, arrays, strings; other leaves unchanged) and
 * returns a new value of the same shape. A string under a key that looks secret (`{"password": "…"}`) is
 * replaced whole, since the key/value pair is no longer visible as text once parsed.
 */
export function redactDeep<T>(value: T): T {
  return deep(value, undefined) as T;
}

function deep(value: unknown, key: string | undefined): unknown {
  if (typeof value === 'string') {
    if (key !== undefined && isSecretName(key) && isSecretValue(value, false)) return marker(assignmentKind(key));
    return redact(value);
  }
  if (Array.isArray(value)) return value.map((v) => deep(v, undefined));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = deep(v, k);
    return out;
  }
  return value;
}

/** The kinds of secret `redact` would remove from `text` (empty when none): for logs and tests. */
export function findSecretKinds(text: string): SecretKind[] {
  const kinds = new Set<SecretKind>();
  for (const m of redact(text).matchAll(/\[REDACTED:([a-z_]+)\]/g)) {
    if (!text.includes(m[0])) kinds.add(m[1] as SecretKind);
  }
  return [...kinds];
}
