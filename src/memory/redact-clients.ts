/**
 * Secrets given on the command line of common clients, where a short flag (`-p`, `-a`) means a password only
 * for that program: `mysql -pX`, `docker login -p X`, `redis-cli -a X`, `sshpass -p X`, `mongosh -p X`,
 * `openssl … -passin pass:X`, `keytool -storepass X`, PowerShell's `ConvertTo-SecureString X -AsPlainText`.
 * Flags of the generic forms (`--password X`, `--token=X`) are redact.ts's. Each rule looks only within one shell
 * command (up to `;`, `|`, `&` or a line break), so `-p 8080` after `docker run` or `ssh -p 22` stay. Whether a
 * command is curl or httpie (`isCurlSegment`) is read here too, for redact.ts's `-u user:password` rule.
 */
import { REDACTED_RE } from './redact-boundaries.js';
import { isDevDefault } from './redact-dev-defaults.js';

/**
 * A shell metacharacter inside an unquoted value that does not end it: `;`, `&` or `)` followed by more of the
 * word (`pa;ss` at the end of a `.env` line). One followed by a space, the end, another metacharacter, or a word
 * and then a space or `=` (`v; echo`, `v;echo done`, `v&&next`, `v;NEXT=1`, `$(… v)`) ends the value, and so do
 * `|`, `<` and `>` always: the shell would end the word there, and a value that swallowed them took the rest of
 * the command with it.
 */
export const META_IN_WORD = `[;&)](?![\\s;&|)<>]|$|[A-Za-z_][A-Za-z0-9_.-]*(?:=|[ \\t]))`;

/** A value: quoted, or a run without whitespace, quotes or shell metacharacters; not a marker already there. */
const V = `((?!\\[REDACTED:)(?:"[^"\\n]*"|'[^'\\n]*'|(?:(?!\\\\[ntr])[^\\s"'\`;|&)<>])+))`;
/**
 * Where a client's name starts: a word boundary, or right after an escaped line break or tab inside a string
 * (`printf 'a\nmysql -uroot -pX'`: the name follows the two characters `\n`, with no boundary between them).
 */
const B = `(?:\\b|(?<=\\\\[ntr]))`;
/** The rest of one command before the flag. */
const SEG = `[^\\n;|&]*?`;

export interface ClientRule {
  re: RegExp;
  /** 1-based index of the group holding the value. */
  value: number;
}

/**
 * A word one of CLIENT_RULES needs (its command or flag word): a text without any skips all of them, which is
 * most records of a transcript.
 */
export const CLIENT_TRIGGER = /mysql|password-stdin|mariadb|login|redis-cli|sshpass|mongo|-pass|openssl|keytool|sqlcmd|bcp|isql|osql|machine|ldap|zip|7z|lftp|mosquitto|ssh-keygen|echo|printf|[Ss]ecure[Ss]tring/;

export const CLIENT_RULES: ClientRule[] = [
  // MySQL and MariaDB clients: the password is glued to -p (`-p X` would prompt and take X as the database).
  { re: new RegExp(`(${B}(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlshow|mysqlcheck|mysqlsh|mariadb|mariadb-dump|mariadb-admin)\\b${SEG}\\s-p)${V}`, 'g'), value: 2 },
  // Registry logins.
  { re: new RegExp(`(${B}(?:docker|podman|buildah|nerdctl|skopeo|oras|helm\\s+registry|az\\s+acr|crane\\s+auth)\\s+login\\b${SEG}\\s(?:-p|--password)(?:\\s+|=))${V}`, 'g'), value: 2 },
  { re: new RegExp(`(${B}az\\s+login\\b${SEG}\\s(?:-p|--password)(?:\\s+|=))${V}`, 'g'), value: 2 },
  // A password fed to `--password-stdin` by a here-string (`docker login -u me --password-stdin <<< X`).
  { re: new RegExp(`(--password-stdin${SEG}<<<\\s*)${V}`, 'g'), value: 2 },
  // Redis: -a PASSWORD, --pass PASSWORD, --user U --pass P.
  { re: new RegExp(`(${B}redis-cli\\b${SEG}\\s(?:-a|--pass|--askpass)(?:\\s+|=))${V}`, 'g'), value: 2 },
  // sshpass -p PASSWORD or -pPASSWORD.
  { re: new RegExp(`(${B}sshpass\\b${SEG}\\s-p\\s*)${V}`, 'g'), value: 2 },
  // MongoDB shells and tools.
  { re: new RegExp(`(${B}(?:mongo|mongosh|mongodump|mongorestore|mongoexport|mongoimport)\\b${SEG}\\s(?:-p|--password)(?:\\s+|=))${V}`, 'g'), value: 2 },
  // OpenSSL pass phrases: -passin pass:X, -passout pass:X, -pass pass:X, -k X.
  { re: /(\s-pass(?:in|out)?\s+pass:)("[^"\n]*"|'[^'\n]*'|[^\s"'`;|&]+)/g, value: 2 },
  { re: new RegExp(`(${B}openssl\\b${SEG}\\s-k\\s+)${V}`, 'g'), value: 2 },
  // Java keystores.
  { re: new RegExp(`(${B}keytool\\b${SEG}\\s-(?:storepass|keypass|srcstorepass|deststorepass)\\s+)${V}`, 'g'), value: 2 },
  // SQL Server and Sybase: -P PASSWORD (capital).
  { re: new RegExp(`(${B}(?:sqlcmd|bcp|isql|osql)\\b${SEG}\\s-P\\s*)${V}`, 'g'), value: 2 },
  // `.netrc` and `machine … login … password …` on one line.
  { re: /(\bmachine\s+\S+(?:\s+login\s+\S+)?\s+password\s+)(\S+)/g, value: 2 },
  // LDAP tools: -w BINDPW (ldappasswd also -a OLD, -s NEW).
  { re: new RegExp(`(${B}ldap(?:search|add|modify|delete|whoami|passwd|compare|modrdn|exop|url)?\\b${SEG}\\s-w\\s*)${V}`, 'g'), value: 2 },
  { re: new RegExp(`(${B}ldappasswd\\b${SEG}\\s-[as]\\s+)${V}`, 'g'), value: 2 },
  // Archives: zip/unzip -P PW, 7-Zip -pPW (glued).
  { re: new RegExp(`(${B}(?:zip|unzip|zipcloak)\\b${SEG}\\s-P\\s+)${V}`, 'g'), value: 2 },
  { re: new RegExp(`(${B}7z[ar]?\\b${SEG}\\s-p)${V}`, 'g'), value: 2 },
  // lftp -u USER,PW; MQTT clients -P PW; ssh-keygen -N NEW / -P OLD pass phrases.
  { re: new RegExp(`(${B}lftp\\b${SEG}\\s-u\\s+[^\\s,"']+,)${V}`, 'g'), value: 2 },
  { re: new RegExp(`(${B}mosquitto_(?:pub|sub|rr)\\b${SEG}\\s-P\\s+)${V}`, 'g'), value: 2 },
  { re: new RegExp(`(${B}ssh-keygen\\b${SEG}\\s-[NP]\\s*)${V}`, 'g'), value: 2 },
  // PowerShell: `ConvertTo-SecureString 'PW' -AsPlainText -Force`, `-String "PW"`, switches first or after.
  { re: new RegExp(`(${B}ConvertTo-SecureString\\b(?:\\s+-(?:AsPlainText|Force))*\\s+(?:-String\\s+)?)(?![($@-])${V}`, 'gi'), value: 2 },
  // A password piped into a client that reads it from stdin: `echo PW | docker login --password-stdin`,
  // `echo PW | sudo -S …`, `echo user:PW | chpasswd`, `echo PW | passwd --stdin user`.
  {
    re: /(\b(?:echo|printf)\s+(?:-[neE]+\s+)?)("[^"\n]*"|'[^'\n]*'|[^\s"'`;|&)<>]+)(?=\s*\|\s*(?:sudo\s+(?:-\w+\s+)*-\w*S\b|chpasswd\b|passwd\s+--stdin\b|[^\n;|&]*--pass(?:word)?-stdin\b))/g,
    value: 2,
  },
  // HTTP basic credentials encoded by hand: `echo -n user:PW | base64` (the Authorization header's value).
  {
    re: /(\b(?:echo|printf)\s+(?:-[neE]+\s+)?(?:'%s'\s+)?["']?[\w.@+-]{1,64}:)((?!\[REDACTED:)[^\s"'`;|&)<>]+)(?=["']?\s*\|\s*(?:openssl\s+)?base64\b)/g,
    value: 2,
  },
];

/**
 * Whether the shell command around `offset` is curl or httpie: the text since the last line break, `;`, `|` or
 * `&`, at most 512 characters back (a lookback, not a regex from the command word: that was quadratic on
 * long lines full of URLs).
 */
export function isCurlSegment(text: string, offset: number): boolean {
  const from = Math.max(0, offset - 512);
  const before = text.slice(from, offset);
  const cut = Math.max(before.lastIndexOf('\n'), before.lastIndexOf(';'), before.lastIndexOf('|'), before.lastIndexOf('&'));
  const segment = before.slice(cut + 1);
  return /\bcurl\b/.test(segment) || /(?:^|\s)https?(?:\s|$)/.test(segment);
}

/** Whether a value given to a client (a flag's or a positional password) is one: not a reference, prompt or default. */
export function isClientSecret(value: string): boolean {
  return !(REDACTED_RE.test(value) || /^[$<{*]/.test(value) || value === '' || isDevDefault(value));
}
