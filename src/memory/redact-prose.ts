/**
 * Passwords told in prose, in the languages users write in: "the password is X", "das Passwort ist X",
 * "le mot de passe est X", "la contraseña es X", "a senha é X", "пароль: X", "密码是 X", "パスワードは X",
 * "비밀번호는 X". The value must look like one (see `isProseValue`), so "the password is required" stays.
 */

/** The word for password, passphrase, secret, token or API key, per language. */
const WORDS = [
  // English (redact.ts's older rule covers "password X" and "password is X" with digits; this adds the rest)
  'password', 'passphrase', 'passcode', 'pass phrase', 'pin code', 'secret', 'api key', 'access token', 'token',
  // German
  'Passwort', 'Kennwort', 'Passphrase', 'Zugangsdaten', 'Geheimnis', 'Schlüssel', 'Token',
  // French
  'mot de passe', 'phrase secrète', 'clé API', 'clé secrète', 'jeton',
  // Spanish, Portuguese, Italian
  'contraseña', 'clave', 'senha', 'palavra-passe', 'chave', 'parola d\'ordine', 'chiave',
  // Dutch, Polish, Russian, Turkish
  'wachtwoord', 'hasło', 'пароль', 'ключ', 'токен', 'şifre', 'parola',
];

const VERBS_LATIN = [
  'is', 'was', 'are', 'equals', 'ist', 'lautet', 'war', 'est', 'était', 'es', 'era', 'é', 'è', 'era', 'is', 'jest', 'это', 'olarak',
];

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** `<word> [verb|:|=] ["']value["']` in the Latin and Cyrillic scripts. */
export const PROSE_LATIN = new RegExp(
  `(?<![\\p{L}\\p{N}_-])(${WORDS.map(escape).join('|')})(?![\\p{L}\\p{N}_-])((?:\\s+(?:${VERBS_LATIN.map(escape).join('|')}))?\\s*[:=：]?\\s*)(["'«“„]?)([^\\s"'«»“”„]{6,})(["'»”“]?)`,
  'giu',
);

/** Chinese and Japanese and Korean: no spaces needed; 密码是X, 密码：X, 口令为X, パスワードはX, 비밀번호는 X. */
export const PROSE_CJK = new RegExp(
  `(密码|密碼|口令|密钥|密鑰|令牌|パスワード|暗証番号|秘密鍵|トークン|비밀번호|암호)((?:\\s*(?:是|为|為|は|が|:|：|=|는|은)\\s*)+|\\s+)(["'“「『]?)([!-~]{6,})(["'”」』]?)`,
  'gu',
);

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
 * joined from three or more parts, or mix upper and lower case.
 */
export function isProseValue(raw: string, quoted: boolean): boolean {
  const v = raw.replace(/[.,;:!?)。、，！？]+$/, '');
  if (v.length < 6 || /^\[REDACTED:/.test(v) || /^[$<{%]/.test(v) || v.includes('/') || NOT_VALUES.has(v.toLowerCase())) return false;
  if (/^[0-9a-f]{7,64}$/.test(v)) return false; // a commit or digest
  if (/[0-9]/.test(v) && /[A-Za-z]/.test(v)) return true;
  if (quoted) return true;
  if (/^[A-Za-z]+(?:[-_.][A-Za-z]+){2,}$/.test(v) && !NOT_VALUES.has(v.toLowerCase())) return true;
  return /[a-z]/.test(v) && /[A-Z]/.test(v.slice(1)) && /[^A-Za-z]/.test(v) === false && v.length >= 8;
}
