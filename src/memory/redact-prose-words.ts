/**
 * Passwords told in prose with no digit in them: "das Passwort ist Blumenkohlregenschirm", "le mot de passe est
 * parapluiechoufleur", "passphrase: correct horse battery staple", "the PIN is 4821". A digit was the only sign
 * of a value before, which kept "the password is required" and "das Passwort ist erforderlich" but also kept
 * every password made of words. The rule here (issue 10, item 8):
 * - only after a word that names a password (not "key", "token" or "secret": technical prose says "the key is
 *   …" about everything) and a verb ("is", "ist", "lautet", "est", "es", "è", "é", "was") or a `:` (`=` is an
 *   assignment, for the assignment rules);
 * - one word of 8 or more letters that is not a word of the sentence: not in the stop-list of adjectives,
 *   participles, adverbs and pronouns below (English, German, French, Spanish, Italian, Portuguese, Dutch), not
 *   shaped like one (the suffixes of participles, adjectives and adverbs in those languages), not a type name of
 *   code (`password: undefined`);
 * - a passphrase of 3 to 10 lowercase words after "passphrase:" (or "… is"), none of them a function word
 *   ("the passphrase is used to unlock the key" stays);
 * - a PIN: 4 to 12 digits after "PIN" (upper case: "pin" is a hardware word) and a verb or `:`.
 */
import { isSecretName } from './secret-names.js';

/** Words that name a password, per language (lower case). */
const PASSWORD_WORD = /^(?:password|passwort|kennwort|passphrase|pass phrase|passcode|mot de passe|phrase secrète|contraseña|senha|palavra-passe|parola d'ordine|wachtwoord|hasło|пароль|şifre|parola)$/i;

/** Adjectives, participles, adverbs and pronouns that follow "the password is" without being one. */
const STOP = new Set(
  `
required optional incorrect invalid correct expired missing wrong empty changed stored hashed encrypted protected
needed necessary mandatory sensitive case-sensitive different identical important available unavailable something
anything nothing everything somewhere elsewhere whatever currently probably actually generally usually normally
already definitely obviously apparently therefore insecure unknown undefined boolean nullable readonly password
passwords placeholder example redacted generated configured supplied specified provided displayed
erforderlich falsch falsche richtig korrekt ungültig abgelaufen geändert gespeichert verschlüsselt vorhanden leer
notwendig zwingend obligatorisch identisch dasselbe derselbe dieselbe anders unbekannt geheim vergeben gesetzt
requis requise obligatoire incorrect incorrecte invalide expiré expirée modifié modifiée identique différent
différente nécessaire inconnu inconnue vide
requerida requerido obligatoria obligatorio incorrecta incorrecto inválida inválido caducada caducado necesaria
diferente idéntica desconocida vacía
obbligatoria obbligatorio errata sbagliata scaduta richiesta necessaria diversa sconosciuta
obrigatória obrigatório incorreta inválida expirada necessária diferente desconhecida
verplicht onjuist ongeldig verlopen vereist gewijzigd anders onbekend leeg
description overview confidential administrator settings beschreibung übersicht vertraulich einstellungen
administrateur paramètres aperçu confidentiel administrador configuración descripción resumen confidencial
`
    .split(/\s+/)
    .filter(Boolean),
);

/**
 * Word endings of participles, adjectives and adverbs: English (-ed, -ing, -ly, -able, -ible, -ive, -ous, -ful,
 * -less, -ent, -ant, -ary, -ory), French (-é, -ée, -és, -ique, -if, -eux, -euse, -ment, -aire), Spanish,
 * Portuguese and Italian (-ado, -ida, -ato, -ito, -uto, -mente, -ável, -ível, -abile, -oso), German and Dutch
 * (-lich, -ig, -bar, -isch, -los, -lijk, -baar).
 */
const WORD_ENDING =
  /(?:ed|ing|ly|able|ible|ive|ous|ful|less|ent|ant|ary|ory|é|ée|és|ées|ique|if|eux|euse|ment|aire|ad[oa]s?|id[oa]s?|at[oa]|it[oa]|ut[oa]|mente|ável|ível|abile|ibile|os[oa]|lich|ig|bar|isch|los|lijk|baar)$/;
/** Endings of participles and adverbs (English, French, Spanish, Portuguese, Italian, German, Dutch). */
const PHRASE_ENDING = /(?:ed|ly|ment|mente|lich|lijk|é|ée|és|ées|ad[oa]s?|id[oa]s?|at[oa]|it[oa]|ut[oa])$/;
/** German and Dutch participles, written in lower case in a sentence: ge…t, ver…t, zurückgesetzt, abgelaufen. */
const PARTICIPLE = /^(?:ge|ver|be|er|ent|zer|ab|an|auf|aus|ein|zurück|un|over|her)\p{Ll}*(?:t|en|d)$/u;

/** Function words that cannot be part of a passphrase told in prose. */
const FUNCTION_WORDS = new Set(
  `the a an to of for and or is are be by in on at with from not that this it its your you we as der die das und ist zu mit für nicht ein eine le la les de des et est pour pas un une el los las y para con no que il lo
  see siehe voir ver vedi zie please bitte enter use must should will can cannot was were has have been then when only also any all each
  every some more less per via after before until since here there below above last next first oben unten plus bas sur dans avec sans
  muss soll wird kann doit peut debe puede deve pode moet kan het een en van op voor niet`.split(/\s+/),
);

/** Whether `word` (the value of "<password word> is …", trailing punctuation gone) is a word of the sentence. */
function isSentenceWord(word: string): boolean {
  const lower = word.toLowerCase();
  if (STOP.has(lower)) return true;
  if (WORD_ENDING.test(lower)) return true;
  return PARTICIPLE.test(word);
}

/**
 * Whether a digit-free `value` after `<word><sep>` is a password: `word` names a password, `sep` holds a verb or
 * a `:`/`=`, and `value` is one word of 8+ letters that is not a word of the sentence (see the file's comment).
 */
export function isWordPassword(word: string, sep: string, value: string): boolean {
  // `password=x` is an assignment: the assignment rules have judged it (a development default stays).
  if (!PASSWORD_WORD.test(word.replace(/\s+/g, ' ')) || !/\S/.test(sep) || sep.includes('=')) return false;
  if (value.length < 8 || !/^\p{L}[\p{L}'’-]*\p{L}$/u.test(value)) return false;
  // A camel-case name that itself says secret (`password: clientPassword,` in an object literal) is the variable
  // that holds it, as `secret-values.ts` reads `clientSecret` (re-trial of trial 21).
  if (/^[a-z]+(?:[A-Z][a-z]+)+$/.test(value) && isSecretName(value)) return false;
  // After a bare `:` a value of capitalised parts is a type (`password: SecretStr` of a pydantic model,
  // `password: PasswordField`): one typed as a password after a label is not written as a class name.
  if (/^[ \t]*[:：][ \t]*$/.test(sep) && /^(?:\p{Lu}\p{Ll}+){2,}$/u.test(value)) return false;
  // A capitalised value is a name, not a word of the sentence: after "password:" or "is" a sentence goes on in
  // lower case (German adjectives and participles too), so only the stop-list applies to it. The word endings
  // would keep "Cielonublado" (-ado) and "Tournesoljaunevif" (-if): passwords joined from words end like words.
  if (/^\p{Lu}\p{Ll}/u.test(value)) return !STOP.has(value.toLowerCase()) && !PARTICIPLE.test(value.toLowerCase());
  if (/^[\p{Lu}'’-]+$/u.test(value)) return isCapsPassword(value, sep);
  return !isSentenceWord(value);
}

/** Status words a program prints in capitals after a password label (`PASSWORD: MISMATCH`), beyond STOP. */
const CAPS_STATUS = new Set(
  `mismatch success successful failure hidden masked pending default locked unlocked enabled disabled accepted rejected
  verified unverified complete incomplete weak strong none null unset notset changeme blank secure insecure omitted
  truncated filtered censored inherited ok okay valid expiring`.split(/\s+/),
);

/**
 * An all-caps value (`CONTRASEÑA: CIELONUBLADO`, `PASSWORD: HUNTERTWO`): a label in capitals is followed by a
 * status in capitals, so the status words (STOP, CAPS_STATUS) and English status endings (-ed, -ing, -ly:
 * `DISABLED`, `PENDING`) stay. After a `:` that is all; the endings of other languages' participles and
 * adjectives (`-ado`) are not read there, since passwords joined from words end like words. After a verb
 * ("PASSWORD IS …") a sentence goes on, and every ending counts as for lower case.
 */
function isCapsPassword(value: string, sep: string): boolean {
  const lower = value.toLowerCase();
  if (STOP.has(lower) || CAPS_STATUS.has(lower) || /(?:ed|ing|ly)$/.test(lower) || PARTICIPLE.test(lower)) return false;
  return /[:：]/.test(sep) || !isSentenceWord(value);
}

/** `word` as written in prose: lower case, capitalised at the start of a sentence or label, or all caps. */
function caseForms(word: string): string[] {
  return [...new Set([word, word.charAt(0).toUpperCase() + word.slice(1), word.toUpperCase()])];
}

/** Words after which a passphrase of words may follow: every password word, and "passphrase" per language. */
const PASSPHRASE_WORDS = [
  'passphrase', 'pass phrase', 'passcode', 'password', 'passwort', 'kennwort', 'mot de passe', 'phrase secrète',
  'phrase de passe', 'contraseña', 'frase de contraseña', 'frase secreta', 'frase segreta', 'senha', 'frase-senha',
  'palavra-passe', "parola d'ordine", 'wachtwoord', 'wachtzin', 'hasło', 'пароль', 'şifre', 'parola',
].flatMap(caseForms).sort((a, b) => b.length - a.length);

/**
 * "passphrase: correct horse battery staple", "the passphrase is correct horse battery staple.", "Passwort: rote
 * Katze tanzt leise", "echo 'mot de passe : vélo rouge lune pâle'". The words end the line, the sentence or the
 * quoted string. No leading lookbehind (it would make V8 try every position of the text): the character before
 * is checked with `startsWord`.
 */
export const PROSE_PASSPHRASE = new RegExp(
  `(${PASSPHRASE_WORDS.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})` +
    `(\\s*[:=：]\\s*|\\s+[-–—]\\s+|\\s+(?:is|was|ist|lautet|war|est|es|é|è|era|jest|это)\\s*[:：]?\\s*)` +
    // An opening quote (JSON-escaped in a transcript line) stays; the closing one may come before the sentence's end.
    `((?:\\\\?["'“‘«])?)(\\p{Lu}?\\p{Ll}+(?:[ \\t]+\\p{Lu}?\\p{Ll}+){2,9})` +
    `(?=[ \\t]*(?:[.!;,]?\\\\?["'\`»”“’]?[ \\t]*(?:\\r?\\n|$|[|;&)])|[.!;][ \\t]|\\\\?["'»”’](?:\\\\?["'])?[.!;,]?(?:[ \\t]|\\r?\\n|\\\\n|$)))`,
  'gu',
);

/**
 * Whether the words of a PROSE_PASSPHRASE match are a passphrase: none a function word, most of them 4+ letters,
 * fewer than half of them adjectives, participles or adverbs.
 */
export function isPassphraseWords(words: string): boolean {
  const list = words.split(/[ \t]+/).map((w) => w.toLowerCase());
  if (list.some((w) => FUNCTION_WORDS.has(w))) return false;
  if (list.filter((w) => w.length >= 4).length < Math.ceil(list.length / 2)) return false;
  // "stored encrypted locally" is a sentence; "purple elephant dancing quietly" has fewer than half such words. Only
  // the stop-list and the endings of participles and adverbs count here: the endings of adjectives and nouns
  // (-ant, -ive, -ous, -if …) are as common among the words of a passphrase ("elephant") as in a sentence.
  return list.filter((w) => STOP.has(w) || PHRASE_ENDING.test(w) || PARTICIPLE.test(w)).length * 2 < list.length;
}

/** "the PIN is 4821", "PIN: 482193", "die PIN lautet 4821", "le code PIN est 4821", "PIN-Code: 4821" (see `startsWord`). */
export const PROSE_PIN = /(PIN(?:[- ]?[Cc]ode)?|Geheimzahl|code PIN|código PIN|codice PIN)(\s+(?:is|was|ist|lautet|war|est|es|é|è)\s*[:=]?\s*|\s*[:=：]\s*)(\d{4,12})(?![\p{L}\p{N}_-])/gu;

/** Whether a match at `offset` of `text` starts a word (the character before is no letter, digit, `_` or `-`). */
export function startsWord(text: string, offset: number): boolean {
  return offset === 0 || !/[\p{L}\p{N}_-]/u.test(text.charAt(offset - 1));
}
