/**
 * Credentials told in prose where no "password is" stands before the value: a secret name given a value by a verb
 * ("set PASSWORD to X", "export API_KEY as X", trials 23 and 24), and an account with its password after words
 * that say logging in ("login as admin:X", "log in to the admin panel as admin:X", "login as admin with X", "user
 * admin and pass X", "auth: admin X", "use admin / X for basic auth", "pass for admin is X"), a Chinese, Japanese
 * or Korean password word with a value in those letters after a colon (`密码: 龙虎山水`), and a password word with
 * what it is for and the value, no verb between ("пароль от базы X"). Kept apart from redact-prose.ts, which
 * calls `redactProsePairs`.
 */
import type { SecretKind } from './redact-kinds.js';
import { isDevDefault } from './redact-dev-defaults.js';
import { REDACTED_RE } from './redact-boundaries.js';
import { remember } from './redact-remember.js';
import { isProseValue } from './redact-prose.js';
import { FOR_WORDS, WORDS } from './redact-prose-lexicon.js';

const marker = (kind: SecretKind): string => `[REDACTED:${kind}]`;
const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A blank within a line. */
const SP = '[^\\S\\r\\n]';
/** An account's name. */
const USER = '[\\p{L}\\p{N}_.@-]{1,64}';
/** A value as written in prose: up to a blank or a quote. */
const VALUE = `([^\\s"'\`“”«»]{6,})`;
/** Words for the password in a pair ("user admin and pass X"), per language. */
const PASS = "pass(?:word|wd)?|pwd?|passwort|kennwort|mot de passe|mdp|contraseña|clave|senha|wachtwoord|hasło|heslo|пароль|şifre|parola|jelszó|lösenord|passord|salasana";
/** Words that say logging in, with the words before the account ("as", "with", …), per language. */
const LOGIN_VERB = "log(?:ged|ging)?[ -]?(?:in(?:to)?|on)|login|logon|sign(?:ed|ing)?[ -]?(?:in(?:to)?|on)|signin|authenticat(?:e[ds]?|ing)|auth|connect(?:ed|ing)?|ssh|anmelden|angemeldet|einloggen|eingeloggt|se connecter|connecte[zr]?(?:-toi|-vous)?|connectez-vous|inicia(?:r)? sesión|entra(?:r)?|accedi|accedere|acceder|accede|zaloguj się|войти|войдите|залогиньтесь|giriş yap";
const AS = 'as|with|using|als|mit|en tant que|avec|como|con|come|jako|как|под';

/**
 * `<log-in words> [up to 5 words] as|with <user>` then the password: `:X` (no blank), ` / X`, or ` with|and|using
 * [password] X`. Group 1 up to the value, 2 the value.
 */
const LOGIN_AS = new RegExp(
  `((?<![\\p{L}\\p{N}_])(?:${LOGIN_VERB})(?:${SP}+[\\p{L}\\p{N}_.'-]+){0,5}?${SP}+(?:${AS})${SP}+${USER}(?::|${SP}*/${SP}*|${SP}+(?:with|and|using|mit|und|avec|et|con|y|e|i|и)${SP}+(?:(?:the|its|password|pass|pw|das|le|la)${SP}+){0,2}))${VALUE}`,
  'giu',
);
/** "user admin and pass X", "username: root, password: X", "utente admin e password X". Group 1 up to the value, 2 it. */
const USER_AND_PASS = new RegExp(
  `((?<![\\p{L}\\p{N}_])(?:user(?:name)?|login|account|utente|usuario|usuário|benutzer(?:name)?|utilisateur|gebruiker|użytkownik|пользователь|логин)${SP}*[:=]?${SP}*${USER}(?:${SP}*[,;/&]${SP}*|${SP}+(?:and|with|und|mit|et|avec|y|con|e|com|en|i|и)${SP}+)(?:(?:the|its|his|her|die|das|le|la|il|el|a)${SP}+)?(?:${PASS})(?:${SP}+(?:is|ist|est|es|è|é))?${SP}*[:=]?${SP}*)${VALUE}`,
  'giu',
);
/** "pass for admin is X", "pw for root: X". Group 1 up to the value, 2 it. */
const PASS_FOR = new RegExp(`((?<![\\p{L}\\p{N}_])(?:${PASS})${SP}+(?:for|of|für|pour|per|para|voor|для|от)${SP}+(?:the${SP}+)?${USER}(?:${SP}+(?:user|account))?(?:${SP}+(?:is|=|ist|est|es|è|é|lautet)${SP}*[:=]?|${SP}*[:=：])${SP}*)${VALUE}`, 'giu');
/**
 * "auth: admin X", "http basic admin X", "basic auth admin X", "auth admin:X": a label, an account, a blank, `:` or
 * `/`, the value.
 */
const LABEL_PAIR = new RegExp(`((?<![\\p{L}\\p{N}_])(?:(?:http[- ])?basic(?:[- ]auth(?:entication)?)?|http[- ]auth|auth|creds|credentials|login)(?:${SP}*[:=]${SP}*|${SP}+)${USER}(?:${SP}+|:|${SP}*/${SP}*))${VALUE}`, 'giu');
/** "use admin / X for basic auth", "admin / X to log in": an account, `/`, the value, then what it is for. */
const PAIR_FOR_AUTH = new RegExp(
  `((?<![\\p{L}\\p{N}_./-])${USER}${SP}*/${SP}*)${VALUE}(?=${SP}+(?:for|to|as|when|on)${SP}+(?:[\\p{L}\\p{N}-]+${SP}+){0,3}?(?:(?:http[- ])?(?:basic[- ])?auth\\w*|log(?:ging)?[ -]?in|login|sign(?:ing)?[ -]?in|credentials|creds)\\b)`,
  'giu',
);
/**
 * A secret name given a value by a verb: "set PASSWORD to X", "export API_KEY as X", "configure the db password as
 * X", "store SECRET_KEY = X". The name ends in the word: "updated tokenizer to v2.1.0" is no secret.
 */
const SET_TO = new RegExp(
  `\\b((?:set|change|changed|rotate|rotated|update|updated|reset|export|exported|configure|configured|define|defined|store|stored|save|saved|register|registered|provide|enter|type|put|assign|assigned|give|add|added|specify|pass)${SP}+(?:the${SP}+|your${SP}+|our${SP}+|an?${SP}+)?(?:[\\p{L}\\p{N}_.-]+${SP}+)?[\\p{L}\\p{N}_.-]*(?:pass(?:word|wd|phrase)?|pwd?|secret|token|api[_ -]?key)(?:[_-]?key)?${SP}+(?:to|as|=|:=|with(?:${SP}+the)?${SP}+value)${SP}+)(["'“]?)([^\\s"'”]{6,})`,
  'giu',
);
/** 密码: 龙虎山水: after a colon, a value in CJK letters without a digit (with one, PROSE_CJK has it). */
const CJK_COLON = /(密码|密碼|口令|密钥|密鑰|令牌|パスワード|暗証番号|비밀번호|암호)([^\S\r\n]*[:：][^\S\r\n]*)(["'“「『]?)([\p{Script=Han}\p{Script=Hangul}]{4,16})(?=$|[\s,，。.;；!！、)）"'”」』])/gmu;
/** Characters of a Chinese sentence, not a value: particles, negation, "please", "required", "empty", "wrong" … */
const CJK_SENTENCE = /[的是不了吗呢吧哦请必须为空错误已未无要能可以需在和与或及由就都也还该此这那您你我他她它们输入修改设置重置忘记]|(?:니다|세요|어요|아요|해요|입력|필수)/u;
/** "пароль от базы X", "password for prod Xy7…": a word, what it is for (1 to 3 words), the value; no verb. */
const FOR_BARE = new RegExp(
  `(${WORDS.map(escape).join('|')})(${SP}+(?:${FOR_WORDS.map(escape).join('|')})(?:${SP}+[\\p{L}\\p{N}_.@-]{1,40}){1,3}?${SP}+)${VALUE}(?=$|[\\s,;!?)]|\\.(?:\\s|$))`,
  'giu',
);

/** A word one of the rules above needs: most records of a transcript have none, and skip every pass. */
const PAIRS_TRIGGER = new RegExp(`pass|pw|log|sign|auth|basic|anmeld|einlogg|sesi|conect|cred|user|utente|usuario|usuário|benutzer|utilisateur|gebruiker|użytkownik|пользоват|логин|ssh|conn|entra|acced|войд|войти|giriş|secret|token|key|密|口令|令牌|パスワード|暗証|비밀|암호|${WORDS.map(escape).join('|')}`, 'iu');

/** Sentence punctuation after a value, kept after its marker. */
const trailOf = (value: string): string => /[.,;:!?)]+$/.exec(value)?.[0] ?? '';
/** A file's name (`token2.txt`): what a secret is saved as, not the secret. */
const FILE_NAME = /^[\w.-]+\.(?:txt|json|ya?ml|env|pem|key|cfg|conf|ini|toml|csv|log|md|sh|js|ts|py)$/i;

/** Whether a value told after a password word is one (not a variable, a dev default, a file or a word); remembered. */
function isToldValue(raw: string, quoted: boolean): boolean {
  const v = raw.replace(/[.,;:!?)]+$/, '');
  if (isDevDefault(v) || FILE_NAME.test(v) || !isProseValue(v, quoted)) return false;
  remember(v);
  return true;
}

/**
 * Whether a value with no password word before it is a password by its look: 8+ characters, letters (any script)
 * and digits, and upper and lower case or digits inside the letters (`Hazel77Nut`, `walnut66shell`, `Байкал99Лёд`);
 * not a name with a number after it (`Release2024`, `Operator2`), a digest or UUID, a version, a path or a marker.
 * Remembered.
 */
export function isStrongValue(raw: string): boolean {
  const v = raw.replace(/[.,;:!?)。、，！？]+$/, '');
  if (v.length < 8 || REDACTED_RE.test(v) || /^[$<{%]/.test(v) || /^[0-9a-f-]+$/i.test(v) || /^v?\d+(?:\.\d+)+/.test(v) || v.includes('/') || FILE_NAME.test(v)) return false;
  if (!/[0-9]/.test(v) || !/\p{L}/u.test(v) || /^\p{L}\p{Ll}+[0-9]{1,4}$/u.test(v) || isDevDefault(v)) return false;
  const mixed = /\p{Lu}/u.test(v) && /\p{Ll}/u.test(v);
  if (!mixed && !/\p{L}[0-9]+\p{L}/u.test(v) && !/[^\p{L}\p{N}]/u.test(v)) return false;
  remember(v);
  return true;
}

/** Every rule of this module over `text` (see the file's comment); replaced values are passed to `remember`. */
export function redactProsePairs(text: string): string {
  if (!PAIRS_TRIGGER.test(text)) return text;
  let out = text.replace(SET_TO, (m, pre: string, q: string, value: string) =>
    isToldValue(value, q !== '') ? `${pre}${q}${marker(/pass|pwd?\b/i.test(pre) ? 'password' : 'secret')}${trailOf(value)}` : m,
  );
  const told = (m: string, pre: string, value: string): string => (isToldValue(value, false) ? `${pre}${marker('password')}${trailOf(value)}` : m);
  // With a password word or a `:` right before it, a value is judged as after "password is"; after a blank or
  // "with" alone it must look like a password by itself ("login as admin with sudo" stays).
  out = out.replace(LOGIN_AS, (m, pre: string, value: string) =>
    (/(?::|\/[^\S\r\n]*|pass\w*[^\S\r\n]+|pw[^\S\r\n]+)$/i.test(pre) ? isToldValue(value, false) : isStrongValue(value)) ? `${pre}${marker('password')}${trailOf(value)}` : m,
  );
  out = out.replace(USER_AND_PASS, told).replace(PASS_FOR, told);
  const strong = (m: string, pre: string, value: string): string => (isStrongValue(value) ? `${pre}${marker('password')}${trailOf(value)}` : m);
  out = out.replace(LABEL_PAIR, strong).replace(PAIR_FOR_AUTH, strong);
  out = out.replace(CJK_COLON, (m, word: string, sep: string, q: string, value: string) => {
    if (CJK_SENTENCE.test(value)) return m;
    remember(value);
    return `${word}${sep}${q}${marker('password')}`;
  });
  return out.replace(FOR_BARE, (m, word: string, sep: string, value: string) =>
    isStrongValue(value) ? `${word}${sep}${marker(/key|token|secret|segre|secre|ключ|токен|секрет/i.test(word) ? 'secret' : 'password')}${trailOf(value)}` : m,
  );
}
