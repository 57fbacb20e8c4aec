/**
 * Passwords told in prose, in the languages users write in: "the password is X", "das Passwort ist X",
 * "le mot de passe est X", "la contraseña es X", "a senha é X", "пароль: X", "密码是 X", "パスワードは X",
 * "비밀번호는 X". The value must look like one (see `isProseValue`, and redact-prose-words.ts for values
 * without a digit), so "the password is required" stays. `redactProse` applies every prose rule.
 */

import type { SecretKind } from './redact.js';
import { PROSE_PASSPHRASE, PROSE_PIN, isPassphraseWords, isWordPassword, startsWord } from './redact-prose-words.js';
import { remember } from './redact-remember.js';
import { REDACTED_RE } from './redact-boundaries.js';
import { isDevDefault } from './redact-dev-defaults.js';
import { redactProsePairs } from './redact-prose-pairs.js';
import { ADJECTIVES, FOR_WORDS, VERBS_LATIN, WORDS } from './redact-prose-lexicon.js';

const marker = (kind: SecretKind): string => `[REDACTED:${kind}]`;

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A blank within a line (no-break spaces included: French puts one before `:`): word and value share a line. */
const SP = '[^\\S\\r\\n]';

/** An adjective between the word and its verb or `:` ("la chiave segreta è X"), optional. */
const ADJ = `(?:${SP}+(?:${ADJECTIVES.map(escape).join('|')})(?=${SP}*[:：]|${SP}+(?:${VERBS_LATIN.map(escape).join('|')}|${FOR_WORDS.map(escape).join('|')})${SP}))?`;

/**
 * `<word> [verb|:|=| - ] ["']value["']` in the Latin and Cyrillic scripts (`:` with or without the French space
 * before it, or the full-width `：`). The word must start a word: checked with
 * `startsWord` on the match, not with a leading lookbehind (V8 would try that at every position of the text).
 */
export const PROSE_LATIN = new RegExp(
  `(${WORDS.map(escape).join('|')})(?![\\p{L}\\p{N}_-])(${ADJ}(?:${SP}+(?:${VERBS_LATIN.map(escape).join('|')}))?${SP}*[:=：]?${SP}*|${SP}+[-–—]${SP}+)(["'«“„]?)([^\\s"'«»“”„]{6,})(["'»”“]?)`,
  'giu',
);

/**
 * `<word> <for|für|du …> <1 to 4 words> <verb|:> value`: "Das Passwort für den Server lautet X", "the password for
 * the staging database is X", "la contraseña de la base de datos es X". The words between must start with one of
 * FOR_WORDS (so "the password reset link is …" stays) and stay on the line; the verb or `:` is required.
 */
export const PROSE_LATIN_FOR = new RegExp(
  `(${WORDS.map(escape).join('|')})(${ADJ}${SP}+(?:${FOR_WORDS.map(escape).join('|')})(?:${SP}+[\\p{L}\\p{N}_.@-]{1,40}){1,4}?(?:${SP}+(?:${VERBS_LATIN.map(escape).join('|')})${SP}*[:：]?|${SP}*[:：])${SP}*)(["'«“„]?)([^\\s"'«»“”„]{6,})(["'»”“]?)`,
  'giu',
);

/**
 * Chinese and Japanese and Korean: no spaces needed; 密码是X, 密码：X, 口令为X, パスワードはX, 비밀번호는 X. The value
 * is printable ASCII but a quote or a backslash, which end it: in `"密码是X",` of JSON or YAML the quote closes the
 * string, and taking it broke the document (issue 10, ninth trial).
 */
export const PROSE_CJK = new RegExp(
  `(密码|密碼|口令|密钥|密鑰|令牌|パスワード|暗証番号|秘密鍵|トークン|비밀번호|암호)((?:${SP}*(?:是|为|為|は|が|:|：|=|는|은)${SP}*)+|${SP}+)(["'“「『]?)([!#-&(-[\\]-~\\p{L}\\p{N}]{6,})(["'”」』]?)`,
  'gu',
);

/** Words that introduce a user and a password (`login: admin / X`), per language. */
const LOGIN_WORDS = [
  'login', 'logon', 'sign-in', 'credentials', 'creds', 'user/pass', 'user/password', 'username/password',
  'Zugang', 'Zugangsdaten', 'Anmeldedaten', 'Login-Daten', 'Logindaten', 'identifiants', 'credenciales', 'credenciais',
  'credenziali', 'inloggegevens',
];

/**
 * A user and a password after a login word (eleventh trial: "Staging admin login: admin / X" in NOTES.md):
 * `<word> [verb] [:=] user / password` or `user:password`, markdown emphasis allowed around the `:`. Group 1 the
 * word, 2 up to the user, 3 the user, 4 the separator, 5 and 7 quotes, 6 the password.
 */
export const LOGIN_PAIR = new RegExp(
  `(${LOGIN_WORDS.map(escape).join('|')})(?![\\p{L}\\p{N}_-])((?:\\*\\*|__)?(?:${SP}+(?:is|are|ist|lautet|lauten|sind|sont|son|são|sono|zijn))?${SP}*[:=：](?:\\*\\*|__)?${SP}*|${SP}+(?:is|are|ist|lautet|lauten|sind|sont|son|são|sono|zijn)${SP}+|${SP}*(?:->|=>|→)${SP}*|${SP}+(?=[\\p{L}\\p{N}_.@+-]{1,64}${SP}*/))([\\p{L}\\p{N}_.@+-]{1,64})(${SP}*/${SP}*|:)(["'«“„]?)([^\\s"'«»“”„]{4,})(["'»”“]?)`,
  'giu',
);

/** Account names a service ships with or a team shares: before ` / X` after a label, X is their password. */
const ACCOUNTS = ['admin', 'administrator', 'root', 'postgres', 'sa', 'sysadmin', 'superuser', 'deploy', 'deployer', 'ubuntu', 'ec2-user', 'elastic', 'oracle', 'mysql', 'guest', 'operator', 'jenkins', 'gitlab', 'grafana', 'rabbitmq', 'minioadmin'];

/**
 * `<label>: admin / X` without a login word (short secrets trial: "Staging DB: admin / X", "Prod: root / X"):
 * a well-known account name after a `:` (or at a line's or list item's start), then ` / ` and a value that must
 * look like a password by itself (`isStrongPassword`), since no word says so. Group 1 up to the value, 2 the value.
 */
export const ACCOUNT_PAIR = new RegExp(
  `((?<=(?:^|[:：]|^${SP}*[-*•]|\\()${SP}*)(?:${ACCOUNTS.map(escape).join('|')})${SP}*/${SP}*)([^\\s"'«»“”„/]{8,64})`,
  'gimu',
);

/** A value that is a password without a word saying so: letters and digits, and mixed case or a symbol. */
export function isStrongPassword(raw: string): boolean {
  const v = raw.replace(/[.,;:!?)。、，！？]+$/, '');
  if (v.length < 8 || REDACTED_RE.test(v) || /^[$<{%]/.test(v) || /^[0-9a-f]+$/i.test(v)) return false;
  const classes = [/[a-z]/, /[A-Z]/, /[0-9]/, /[^A-Za-z0-9]/].filter((c) => c.test(v)).length;
  // A word with a number after it (`Operator2`, `Release2024`) is a name; a password switches case or class inside.
  return /[0-9]/.test(v) && /[A-Za-z]/.test(v) && classes >= 3 && !/^[A-Za-z][a-z]+[0-9]{1,4}$/.test(v);
}

/**
 * "Use X as the password for the CI user", "set X as the token" (twelfth trial): the value comes before the word.
 * Group 1 the verb and its blank, 2 the quote, 3 the value, 4 the rest up to the word.
 */
const USE_AS = new RegExp(`\\b(use|using|set|with)(${SP}+)(["'“]?)([^\\s"'”]{6,64})\\3(${SP}+as${SP}+(?:the${SP}+|your${SP}+|a${SP}+|an${SP}+)?(?:[\\p{L}-]+${SP}+)?(?:password|passphrase|passcode|pw|secret|token|api key)\\b)`, 'giu');

function redactUseAs(text: string): string {
  return text.replace(USE_AS, (m, verb: string, sp: string, q: string, value: string, rest: string) => {
    if (!isProseValue(value, q !== '')) return m;
    remember(value);
    return `${verb}${sp}${q}${marker('password')}${q}${rest}`;
  });
}

/** A Markdown table row of a well-known account and its password (`| admin | X |`), the value judged as in ACCOUNT_PAIR. */
const ACCOUNT_ROW = new RegExp(`(\\|${SP}*(?:${ACCOUNTS.map(escape).join('|')})${SP}*\\|${SP}*)([^|\\s]{8,64})(?=${SP}*\\|)`, 'gimu');

function redactAccountPairs(text: string): string {
  const rows = text.includes('|') ? text.replace(ACCOUNT_ROW, (m, head: string, value: string) => {
    if (!isStrongPassword(value)) return m;
    remember(value);
    return `${head}${marker('password')}`;
  }) : text;
  return rows.replace(ACCOUNT_PAIR, (m, head: string, value: string) => {
    const trail = value.match(/[.,;:!?)。、，！？]+$/)?.[0] ?? '';
    const bare = value.slice(0, value.length - trail.length);
    if (!isStrongPassword(bare)) return m;
    remember(bare);
    return `${head}${marker('password')}${trail}`;
  });
}

/**
 * A path or URL, not a value: only path characters between its slashes (`src/config/app.yaml`, `~/.pgpass`,
 * `https://vault/x`). A slash among other symbols (`p@ss:w0rd/with#chars9`, twelfth trial) is a password's.
 */
function pathLike(v: string): boolean {
  return v.includes('/') && (/^[\w.~-]*(?:\/[\w.@+-]*)+$/.test(v) || /^[a-z][a-z0-9+.-]*:\/\//i.test(v));
}

/** Words that follow "password is" without being one. */
const NOT_VALUES = new Set([
  'required', 'optional', 'incorrect', 'invalid', 'correct', 'expired', 'missing', 'wrong', 'empty', 'changed',
  'stored', 'hashed', 'encrypted', 'protected', 'needed', 'necessary', 'set', 'unset', 'reset', 'longer', 'shorter',
  'erforderlich', 'falsch', 'ungültig', 'abgelaufen', 'requis', 'incorrect', 'obligatoire', 'requerida', 'incorrecta',
  'obrigatória', 'incorreta', 'sensitive', 'case-sensitive', 'too', 'not', 'now', 'still', 'being', 'the', 'your',
]);

/**
 * Whether a word after "password is" is a value: not a marker, a placeholder or a variable; not a word of the
 * sentence. Digits are not required: "correct-horse-battery-staple" is a passphrase, but then it must be quoted,
 * joined by hyphens from three or more parts, or mix upper and lower case.
 */
export function isProseValue(raw: string, quoted: boolean): boolean {
  const v = raw.replace(/[.,;:!?)。、，！？]+$/, '');
  if (v.length < 6 || /^\[REDACTED:/.test(v) || /^[$<{%]/.test(v) || pathLike(v) || NOT_VALUES.has(v.toLowerCase())) return false;
  // A value told in prose is typed: a control character is binary (random bytes read as text held `PW:x3…`).
  if (/[\u0000-\u0008\u000e-\u001a\u001c-\u001f\u007f-\u009f]/.test(v)) return false;
  if (/^[0-9a-f]{7,64}$/.test(v)) return false; // a commit or digest
  if (/[0-9]/.test(v) && /\p{L}/u.test(v)) return true;
  if (quoted) return true;
  // Joined by hyphens: `a.b.c` and `a_b_c` are code's member accesses and names (`token: data.access_token`).
  if (/^[A-Za-z]+(?:-[A-Za-z]+){2,}$/.test(v) && !NOT_VALUES.has(v.toLowerCase())) return true;
  // Mixed case alone, but not a camel-case name of code (`token: accessToken,`) nor a type's (`password: SecretStr`
  // in a pydantic model, `token: AccessToken`): capitalised word parts are a name, a password breaks the pattern.
  return /[a-z]/.test(v) && /[A-Z]/.test(v.slice(1)) && /[^A-Za-z]/.test(v) === false && v.length >= 8 && !/^[a-z]+(?:[A-Z][a-z]*)+$/.test(v) && !/^(?:[A-Z][a-z]+){2,}$/.test(v);
}

/**
 * A password or secret told in prose: "the password is hunter2x", "use password FAKE123 from now on". Only a
 * value that mixes letters and digits counts, so "the password is required" and "token budget 4096" stay. Word
 * and value share a line: a URL ending in `/token` says nothing about the key that starts the next line.
 */
const PROSE_SECRET = /\b(password|passphrase|passwd|secret|token|api[ _-]?key)([^\S\r\n]+(?:is|was|=|:)?[^\S\r\n]*)(["'`]?)([^\s"'`]{6,})\3/gi;

/** "the key AKx9…": after a bare "key", only a long value mixing upper case, lower case and digits counts. */
const PROSE_KEY = /\b(key)([^\S\r\n]+(?:is|was|=|:)?[^\S\r\n]*)(["'`]?)([A-Za-z0-9+/=_-]{20,})\3(?![A-Za-z0-9+/=_-])/gi;

/**
 * Whether a prose word at `offset` starts a word, or ends a German or Dutch compound that names a password
 * ("Das Root-Passwort ist X", "Datenbankkennwort: X", "het beheerderswachtwoord is X").
 */
function startsCompound(text: string, offset: number, word: string): boolean {
  return startsWord(text, offset) || (/^(?:passwort|kennwort|wachtwoord)$/i.test(word) && /\p{L}-?$/u.test(text.slice(Math.max(0, offset - 2), offset)));
}

/** The marker kind for a prose word: a password in any language, else a secret. */
function proseKind(word: string): SecretKind {
  return /^pwd?$|pass|wort|woord|contrase|senha|has[lł]o|пароль|şifre|parol|jelsz|sandi|laluan|heslo|lösenord|passord|adgangskod|salasan|khẩu|lozink|geslo|slaptažod|парол|密码|密碼|口令|パスワード|비밀번호|암호|كلمة|رمز|گذرواژه|סיסמ|पासवर्ड|κωδικ|συνθηματικ|รหัสผ่าน/i.test(word) ? 'password' : 'secret';
}

function isProseSecret(value: string): boolean {
  const v = value.replace(/[.,;:!?)]+$/, '');
  // A letter of any script: "пароль: Медведь77Лес" was kept for want of a Latin one (trial 23 F1).
  return !REDACTED_RE.test(v) && !/^[$<{%]/.test(v) && /[0-9]/.test(v) && /\p{L}/u.test(v) && !/^[0-9a-f]{7,64}$/.test(v) && !pathLike(v);
}

/**
 * A label that ends its line, its value alone on the next (`Passwort:` ⏎ `  X`, `Done. 密码：` ⏎ `X`, a YAML
 * block scalar `password: |` ⏎ `  X`), a blank line between them or not, the breaks real or escaped inside a
 * string (`printf 'Passwort:\n  X\n'`): the value is the whole line, one word (trial 21).
 */
const PROSE_NEXT_LINE = new RegExp(
  `(^|\\n|\\\\n|${SP}|["'\`])(${SP}*(?:[-*]${SP}+)?)(${[...WORDS, '密码', '密碼', '口令', 'パスワード', '비밀번호', '암호'].map(escape).join('|')})(${SP}*[:：](?:${SP}*[|>][-+]?)?${SP}*(?:\\r?\\n|\\\\n)(?:${SP}*(?:\\r?\\n|\\\\n))?${SP}*)(["'«“„]?)((?:(?!\\\\[ntr])[^\\s"'«»“”„]){6,})(["'»”“]?)(?=${SP}*(?:\\r?\\n|\\\\[ntr]|$|['"]))`,
  'giu',
);

/**
 * A word every prose rule needs (a superset of WORDS, LOGIN_WORDS, the CJK words, PROSE_KEY's, the passphrase and
 * PIN words).
 */
const PROSE_TRIGGER = /pass|tajem|tajom|tajn|hemlig|hemmelig|salaisuus|titok|sır|secretul|тайна|klucz|klíč|kľúč|nyckel|nøkkel|nøgle|avain|anahtar|kulcs|cheia|ključ|\bpwd?\b|wort|secr|segre|segred|секрет|sekret|basic[- ]auth|token|key|cl[ée]|jeton|contrase|clave|senha|chave|chiave|woord|has[łl]o|пароль|parol|jelsz|sandi|laluan|heslo|lösenord|passord|adgangskod|salasan|khẩu|lozink|geslo|slaptažod|парол|ключ|токен|şifre|parola|geheim|schl[üu]ssel|zugang|anmelde|log[io]n|sign-in|cred|identifiant|toegang|inlog|pin|密|口令|令牌|パスワード|暗証|トークン|비밀|암호|كلمة|رمز|گذرواژه|סיסמ|पासवर्ड|κωδικ|συνθηματικ|รหัสผ่าน/i;

/**
 * An account and its password written together without a password word before the value (trial 23 F11): "login as
 * admin:X", "signed in with deploy:X", "user admin, pass X", "basic auth admin / X". Group 1 up to the value, 2 the
 * value.
 */
const ACCOUNT_WITH_PASSWORD = [
  new RegExp(`(\\b(?:log(?:ged)?[ -]?in|sign(?:ed)?[ -]?in|auth(?:enticate[ds]?)?)${SP}+(?:as|with)${SP}+[\\p{L}\\p{N}_.@-]{1,64}:)([^\\s"'\`]{6,})`, 'giu'),
  new RegExp(`(\\buser(?:name)?${SP}*[:=]?${SP}*[\\p{L}\\p{N}_.@-]{1,64}${SP}*[,;/]${SP}*(?:pass(?:word|wd)?|pwd?)${SP}*[:=]?${SP}*)([^\\s"'\`,;]{6,})`, 'giu'),
  new RegExp(`(\\bbasic[- ]auth(?:entication)?${SP}+[\\p{L}\\p{N}_.@-]{1,64}${SP}*[/:]${SP}*)([^\\s"'\`]{6,})`, 'giu'),
];

/**
 * "login as admin with password123", "signed in as deploy using Tr0ub4dor&3" (trial 24): the word after the account
 * is a password only when it is a strong one (isStrongPassword) or a password word with digits or signs glued on
 * (`password123`, `Passw0rd!`, `secret2024`): "with sudo", "with SSO", "with Release2024" (a name) stay.
 */
const LOGIN_AS_WITH = new RegExp(`(\\b(?:log(?:ged)?[ -]?in|sign(?:ed)?[ -]?in)${SP}+as${SP}+[\\p{L}\\p{N}_.@-]{1,64}${SP}+(?:with|using)${SP}+)([^\\s"'\`]{6,})`, 'giu');
const WEAK_PASSWORD = /^(?:p[a@]s{2}(?:w[o0]rd)?|p[a@]s{2}w[o0]rd|secret|s3cr3t|letmein|qwerty|welcome|changeme)[0-9!@#$%^&*]+$/i;

/** Sentence punctuation after a value, kept after its marker. */
const trailOf = (value: string): string => /[.,;:!?)]+$/.exec(value)?.[0] ?? '';

/** The value of ACCOUNT_WITH_PASSWORD when it is one (not a variable, a dev default or a word); remembered. */
function isToldValue(raw: string, quoted: boolean): boolean {
  const v = raw.replace(/[.,;:!?)]+$/, '');
  if (isDevDefault(v) || !isProseValue(v, quoted)) return false;
  remember(v);
  return true;
}

/**
 * Every prose rule over `text`: English "password is X" with a digit, "the key AKx9…", the same in other languages
 * (PROSE_LATIN, PROSE_CJK), values without a digit, passphrases of words and PINs (redact-prose-words.ts).
 * Replaced values are passed to `remember`.
 */
export function redactProse(text: string): string {
  // Most records of a transcript name no secret word at all: one cheap test spares every prose pass.
  let out = text.includes('/') || text.includes('|') ? redactAccountPairs(text) : text;
  out = redactProsePairs(out);
  if (!PROSE_TRIGGER.test(out)) return out;
  out = redactUseAs(out);
  for (const re of ACCOUNT_WITH_PASSWORD) out = out.replace(re, (m, pre: string, value: string) => (isToldValue(value, false) ? `${pre}${marker('password')}${trailOf(value)}` : m));
  out = out.replace(LOGIN_AS_WITH, (m, pre: string, value: string) => {
    const bare = value.slice(0, value.length - trailOf(value).length);
    if (!(isStrongPassword(bare) || WEAK_PASSWORD.test(bare)) || isDevDefault(bare)) return m;
    remember(bare);
    return `${pre}${marker('password')}${trailOf(value)}`;
  });
  out = out.replace(PROSE_SECRET, (m, word: string, sep: string, q: string, value: string) => {
    // A spaced assignment (`secret = toUint8Array(secret)`) is code's: the assignment rules judge it, knowing code
    // from `.env`. An unspaced one stays here: to them `--from-literal=password=…` is one word.
    if (/\s=|=\s/.test(sep) || !isProseSecret(value)) return m;
    const trail = value.match(/[.,;:!?)]+$/)?.[0] ?? '';
    remember(value.slice(0, value.length - trail.length));
    return `${word}${sep}${q}${marker(/pass/i.test(word) ? 'password' : 'secret')}${trail}${q}`;
  });
  out = out.replace(PROSE_KEY, (m, word: string, sep: string, q: string, value: string) =>
    /[A-Z]/.test(value) && /[a-z]/.test(value) && /[0-9]/.test(value) && !REDACTED_RE.test(value) ? `${word}${sep}${q}${marker('secret')}${q}` : m,
  );
  out = out.replace(PROSE_NEXT_LINE, (m, start: string, indent: string, word: string, sep: string, q: string, value: string, q2: string) => {
    if (!isProseValue(value, q !== '' && q2 !== '') && !isProseSecret(value)) return m;
    remember(value);
    return `${start}${indent}${word}${sep}${q}${marker(proseKind(word))}${q2}`;
  });
  out = out.replace(PROSE_LATIN, (m, word: string, sep: string, q: string, value: string, q2: string, offset: number, whole: string) => {
    // Nothing between word and value is code's (`TEMPLATE_FIELDS[token.slice(1, -1)]`), not a sentence.
    if (sep === '' || /\s=|=\s/.test(sep) || !startsCompound(whole, offset, word)) return m;
    const trail = value.match(/[.,;:!?)。、，！？]+$/)?.[0] ?? '';
    // A key's value may be all hex ("api key 0123…cdef", 32+ digits): the word says it is no commit or digest.
    if (/key|token|secret/i.test(word) && /^[0-9a-f]{32,128}$/i.test(value.slice(0, value.length - trail.length))) {
      remember(value.slice(0, value.length - trail.length));
      return `${word}${sep}${q}${marker('secret')}${trail}${q2}`;
    }
    // A documented default ("the test uses password 'password'", trial 23 F2) is what a lesson about it says.
    if (isDevDefault(value.slice(0, value.length - trail.length))) return m;
    if (!isProseValue(value, q !== '' && q2 !== '') && !isWordPassword(word, sep, value.slice(0, value.length - trail.length))) return m;
    remember(value.slice(0, value.length - trail.length));
    return `${word}${sep}${q}${marker(proseKind(word))}${trail}${q2}`;
  });
  out = out.replace(PROSE_LATIN_FOR, (m, word: string, sep: string, q: string, value: string, q2: string, offset: number, whole: string) => {
    if (!startsCompound(whole, offset, word)) return m;
    const trail = value.match(/[.,;:!?)。、，！？]+$/)?.[0] ?? '';
    const bare = value.slice(0, value.length - trail.length);
    // The verb closes the words between: `isWordPassword` judges the value after it as after "<word> is".
    if (!isProseValue(value, q !== '' && q2 !== '') && !isWordPassword(word, sep.slice(sep.search(/\S+\s*[:：]?\s*$/u)), bare)) return m;
    remember(bare);
    return `${word}${sep}${q}${marker(proseKind(word))}${trail}${q2}`;
  });
  out = out.replace(LOGIN_PAIR, (m, word: string, sep: string, user: string, slash: string, q: string, value: string, q2: string, offset: number, whole: string) => {
    const trail = value.match(/[.,;:!?)。、，！？]+$/)?.[0] ?? '';
    const bare = value.slice(0, value.length - trail.length);
    if (!startsWord(whole, offset) || REDACTED_RE.test(user) || !isProseValue(bare, q !== '' && q2 !== '')) return m;
    remember(bare);
    return `${word}${sep}${user}${slash}${q}${marker('password')}${trail}${q2}`;
  });
  out = out.replace(PROSE_CJK, (m, word: string, sep: string, q: string, value: string, q2: string) => {
    // A value in CJK letters needs a digit: "密码是龙虎88山水" is one (re-trial of trial 23), "密码是不能为空的哦" is a sentence.
    if (/[^\x00-\x7f]/.test(value) && !/[0-9]/.test(value)) return m;
    if (!isProseValue(value, true)) return m;
    // Sentence punctuation after the value stays, as in PROSE_LATIN: `密码是X,` in a list, `X)` in a note.
    const trail = value.match(/[.,;:!?)]+$/)?.[0] ?? '';
    remember(value.slice(0, value.length - trail.length));
    return `${word}${sep}${q}${marker(proseKind(word))}${trail}${q2}`;
  });
  out = out.replace(PROSE_PASSPHRASE, (m, word: string, sep: string, quote: string, words: string, offset: number, whole: string) => {
    if (!startsWord(whole, offset) || !isPassphraseWords(words)) return m;
    remember(words);
    return `${word}${sep}${quote}${marker('password')}`;
  });
  out = out.replace(PROSE_PIN, (m, word: string, sep: string, _pin: string, offset: number, whole: string) =>
    startsWord(whole, offset) ? `${word}${sep}${marker('password')}` : m,
  );
  return out;
}
