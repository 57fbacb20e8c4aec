/**
 * The words of the prose rules (redact-prose.ts, redact-prose-pairs.ts): what names a secret, the copulas and
 * verbs that lead to its value, the adjectives that may stand between (new-user trial 24: "la chiave segreta è X"),
 * and the words that open what a secret is for. Lists only; the rules are in those modules.
 */

/** The word for password, passphrase, secret, token or API key, per language. */
export const WORDS = [
  // A word and its copula where the copula is also an English word ("to", "on"): only after that language's word
  // (trial 22: Polish "hasło to X" is how it is said; "token to X" or "secret on X" in English are no such form).
  'hasło to', 'haslo to', 'salasana on', 'salasanani on', 'parool on', 'parooli on',
  // The same with an adjective between (trial 24's kind: "hasło tymczasowe to X").
  ...['tymczasowe', 'nowe', 'tajne', 'aktualne', 'główne', 'domyślne', 'stare'].flatMap((adj) => [`hasło ${adj} to`, `haslo ${adj} to`]),
  // English (redact.ts's older rule covers "password X" and "password is X" with digits; this adds the rest)
  'password', 'passphrase', 'passcode', 'pass phrase', 'pin code', 'secret key', 'signing key', 'encryption key', 'master key', 'secret', 'api key', 'access token', 'token',
  // The short forms people write in notes and chat ("pw is X", "pwd: X"); a path after them is not a value.
  'pw', 'pwd', 'passwd',
  // "pass" alone is a step ("the first pass is slower"); after what it opens it is the short form of password.
  ...['db', 'database', 'admin', 'root', 'user', 'login', 'account', 'ssh', 'wifi', 'wi-fi', 'mysql', 'postgres', 'redis', 'smtp', 'mail', 'ftp', 'vpn', 'vault']
    .flatMap((what) => [`${what} pass`, `${what}-pass`, `${what}_pass`]),
  // German
  'Passwort', 'Kennwort', 'Passphrase', 'Zugangsdaten', 'Zugangscode', 'Zugang', 'Anmeldedaten', 'Geheimnis', 'Schlüssel', 'Token',
  // French
  'mot de passe', 'phrase secrète', 'clé API', 'clé secrète', 'jeton',
  // Spanish, Portuguese, Italian
  'contraseña', 'clave', 'senha', 'palavra-passe', 'chave', 'parola d\'ordine', 'chiave',
  // Dutch, Polish, Russian, Turkish
  'wachtwoord', 'toegangscode', 'hasło', 'пароль', 'ключ', 'токен', 'şifre', 'parola',
  // "Secret" in Italian, Spanish, Portuguese, Russian, Polish (trial 23 F1: "il segreto è X" was kept)
  'segreto', 'secreto', 'segredo', 'секрет', 'sekret',
  // Hungarian, Indonesian/Malay, Czech/Slovak, Swedish, Norwegian/Danish, Finnish, Estonian, Vietnamese, Romanian,
  // Croatian/Serbian, Slovenian, Lithuanian, Latvian, Bulgarian (trial 22 F3: "jelszó: X", "kata sandi: X" kept)
  'jelszó', 'jelszava', 'kata sandi', 'kata laluan', 'heslo', 'lösenord', 'lösenordet', 'passord', 'passordet', 'adgangskode',
  'adgangskoden', 'salasana', 'parool', 'mật khẩu', 'parolă', 'parola de acces', 'lozinka', 'geslo', 'slaptažodis', 'parole', 'парола',
  // "Secret" as a noun, and "key", in the languages above (trial 24: "tajemství je X" was kept).
  'tajemství', 'tajomstvo', 'tajná', 'geheim', 'hemlighet', 'hemligheten', 'hemmelighet', 'hemmeligheten', 'hemmelighed', 'salaisuus',
  'titok', 'sır', 'secretul', 'tajna', 'тайна', 'klucz', 'klíč', 'kľúč', 'nyckel', 'nøkkel', 'nøgle', 'avain', 'anahtar', 'kulcs', 'cheia', 'ključ',
  // Arabic, Persian, Hebrew, Hindi, Greek, Thai (thirteenth trial F10: "كلمة المرور هي X" was kept)
  'كلمة المرور', 'كلمة السر', 'رمز المرور', 'رمز عبور', 'گذرواژه', 'סיסמה', 'הסיסמה', 'סיסמא', 'पासवर्ड', 'κωδικός', 'συνθηματικό', 'รหัสผ่าน',
];

const VERBS = [
  'is', 'was', 'are', 'equals', 'ist', 'lautet', 'war', 'est', 'était', 'es', 'era', 'é', 'è', 'era', 'is', 'jest', 'это', 'olarak',
  'هي', 'هو', 'است', 'היא', 'הוא', 'है', 'είναι', 'คือ',
  // Copulas of the words above that are no English words: Czech/Slovak/Croatian "je", Swedish "är", Norwegian and
  // Danish "er", Vietnamese "là", Indonesian "adalah"/"ialah", Romanian "este", Lithuanian "yra", Latvian "ir".
  'je', 'är', 'er', 'là', 'adalah', 'ialah', 'este', 'yra', 'ir',
  // A change told in a commit message or a note ("rotate: staging password is now X", "password changed to X").
  'is now', 'is still', 'is currently', 'ist jetzt', 'ist nun', 'lautet jetzt', 'lautet nun', 'est maintenant', 'es ahora', 'é agora', 'è ora', 'is nu',
  'changed to', 'set to', 'rotated to', 'reset to', 'updated to', 'geändert auf', 'geändert zu', 'gesetzt auf', 'changé en', 'cambiada a',
  // The same in the passive (trial 24: "the password was changed to X"), per language.
  ...['was', 'has been', 'had been', 'is', 'is now', 'was now', 'got', 'will be', 'has now been', 'was just']
    .flatMap((aux) => ['changed', 'set', 'reset', 'updated', 'rotated', 'switched', 'moved'].map((verb) => `${aux} ${verb} to`)),
  'wurde geändert auf', 'wurde geändert zu', 'wurde geändert in', 'wurde gesetzt auf', 'wurde zurückgesetzt auf', 'ist jetzt',
  'a été changé en', 'a été changée en', 'a été modifié en', 'a été modifiée en', 'a été changé pour', 'a été changée pour',
  'fue cambiada a', 'fue cambiado a', 'se cambió a', 'ha sido cambiada a', 'ha cambiado a', 'cambió a',
  'è stata cambiata in', 'è stato cambiato in', 'è stata impostata a', 'è stato impostato a', 'è stata cambiata a', 'è diventata',
  'foi alterada para', 'foi alterado para', 'foi mudada para', 'foi mudado para', 'mudou para',
  'is gewijzigd in', 'werd gewijzigd in', 'zostało zmienione na', 'zmieniono na', 'изменён на', 'изменен на', 'сменили на', 'теперь',
];
/** The verbs, longest first: a regex takes the first alternative that fits, and "was" must not win over "was changed to". */
export const VERBS_LATIN = [...new Set(VERBS)].sort((a, b) => b.length - a.length);

/**
 * Adjectives that may stand between a secret's word and its verb ("la chiave segreta è X", "il token segreto è X",
 * "la contraseña secreta es X", "the password used is X"), per language; only with a verb or `:` after them.
 */
export const ADJECTIVES = [
  'secret', 'new', 'old', 'current', 'actual', 'real', 'temporary', 'temp', 'default', 'initial', 'shared', 'master', 'admin', 'root',
  'staging', 'prod', 'production', 'test', 'dev', 'one-time', 'correct', 'right', 'final', 'private', 'used', 'needed', 'here',
  'segreta', 'segreto', 'segrete', 'segreti', 'nuova', 'nuovo', 'vecchia', 'vecchio', 'attuale', 'temporanea', 'temporaneo', 'vera', 'vero',
  'corretta', 'corretto', 'giusta', 'giusto', 'iniziale', 'predefinita', 'predefinito', 'privata', 'privato', 'condivisa', 'principale',
  'secreta', 'secreto', 'nueva', 'nuevo', 'vieja', 'viejo', 'actual', 'temporal', 'verdadera', 'correcta', 'correcto', 'inicial',
  'predeterminada', 'privada', 'privado', 'compartida', 'principal', 'nova', 'novo', 'antiga', 'atual', 'temporária', 'verdadeira', 'correta', 'padrão',
  'secrète', 'nouveau', 'nouvelle', 'actuel', 'actuelle', 'temporaire', 'vrai', 'vraie', 'correcte', 'initiale', 'privé', 'privée', 'partagé', 'principale',
  'geheime', 'geheimer', 'geheimes', 'neue', 'neuer', 'neues', 'aktuelle', 'aktueller', 'richtige', 'geheime', 'nieuwe', 'huidige', 'juiste',
  'tajne', 'tajny', 'nowe', 'nowy', 'tymczasowe', 'aktualne', 'tajné', 'tajný', 'nové', 'nový', 'dočasné', 'aktuální',
  'секретный', 'секретная', 'новый', 'новая', 'текущий', 'текущая', 'временный', 'временная', 'gizli', 'yeni', 'hemliga', 'nya', 'nye', 'uusi',
];

/** Words that open what a password is for: "the password FOR the server is X", "das Passwort FÜR den Server lautet X". */
export const FOR_WORDS = [
  'for', 'of', 'to', 'on', 'für', 'fürs', 'zum', 'zur', 'vom', 'von', 'des', 'der', 'pour', 'du', 'de', 'del', 'de la', 'da', 'do', 'della', 'dello',
  'per', 'para', 'voor', 'van', 'dla', 'do', 'для', 'от', 'için', 'di', 'dei', 'degli', 'delle', 'pro', 'na',
];

