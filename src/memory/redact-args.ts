/**
 * Secrets given as an argument where the command, not a name, says what it is (issue 10, fifth trial), the
 * forms `redact-clients.ts` (short flags of one client) and `redact-positional.ts` (positional passwords) do not
 * cover:
 * - SQL: `CREATE USER … IDENTIFIED BY 'pw'`, `… IDENTIFIED WITH plugin BY 'pw'`;
 * - `vault login TOKEN` (the token is the first word after the flags);
 * - `aws configure set aws_secret_access_key V`, and any `config set`/`configure set`/`config:set` whose key
 *   name says secret (`npm config set //reg/:_authToken V`, `heroku config:set DB_PASSWORD V`);
 * - `rabbitmqctl add_user NAME PW`, `change_password NAME PW`, `authenticate_user NAME PW`;
 * - curl's `--oauth2-bearer T` and `--proxy-user u:PW`;
 * - a `.pgpass` line `host:port:database:user:PW`;
 * - a printf format that cuts a token: `printf 'ghp_%s\n' REST` (the format's `%s` filled with the arguments).
 * Only the value is replaced; references (`$PW`), prompts and development defaults stay (see `accept`).
 */

/** A value: quoted, or a run without whitespace, quotes or shell metacharacters; not a marker already there. */
const V = `((?!\\[REDACTED:)(?:"[^"\\n]*"|'[^'\\n]*'|[^\\s"'\`;|&)<>]+))`;
/** The rest of one command before the value. */
const SEG = `[^\\n;|&]*?`;

interface ArgRule {
  re: RegExp;
  /** 1-based index of the group holding the value. */
  value: number;
  /** Group holding the name the value is set under, when the rule needs it to say secret. */
  name?: number;
}

const RULES: ArgRule[] = [
  { re: /(\bIDENTIFIED\s+(?:WITH\s+[\w'"`]+\s+)?(?:BY|AS)\s+(?:PASSWORD\s+)?)('[^'\n]*'|"[^"\n]*")/gi, value: 2 },
  { re: new RegExp(`(\\bvault\\s+login\\b(?:\\s+-\\S+)*\\s+)(?![-\\w.]*=)${V}`, 'g'), value: 2 },
  { re: new RegExp(`(\\b(?:configure|config)(?:\\s+|:)set\\s+(?:--\\S+\\s+)*(?:[\\w.-]*\\.)?(\\S*?)\\s+)${V}`, 'g'), value: 3, name: 2 },
  { re: new RegExp(`(\\brabbitmqctl\\b${SEG}\\s(?:add_user|change_password|authenticate_user)\\s+(?:"[^"\\n]*"|'[^'\\n]*'|\\S+)\\s+)${V}`, 'g'), value: 2 },
  { re: new RegExp(`(\\s--oauth2-bearer(?:\\s+|=))${V}`, 'g'), value: 2 },
  { re: new RegExp(`(\\s--proxy-user(?:\\s+|=)["']?[^\\s:"'[\\]]+:)((?!\\[REDACTED:)[^\\s"'@]+)`, 'g'), value: 2 },
  // .pgpass: host (a name, an address or `*`), port (digits or `*`), database, user, password; one a line.
  { re: /((?:^|(?<=\\n)|(?<=[\s"']))(?:\*|[A-Za-z0-9.-]*[A-Za-z.][A-Za-z0-9.-]*|\[[0-9a-fA-F:]+\]):(?:\d{1,5}|\*):[^:\s"'\\]+:[^:\s"'\\]+:)([^\s:"'\\]+)(?=$|\\n|[\s"'])/gm, value: 2 },
];

/** A word any rule needs: text without one skips them all. */
const TRIGGER = /identified|vault|config|rabbitmqctl|oauth2|proxy-user|:\d{1,5}:|:\*:/i;

/**
 * Replaces each value of the forms above with `marker`. `accept(value)` says whether a value is a secret (not a
 * reference, prompt, marker or development default); `isSecretName(name)` whether a config key names one;
 * accepted values go to `onRedact` (for the remembering redactor). Pure otherwise.
 */
export function redactArgs(
  text: string,
  marker: string,
  accept: (value: string) => boolean,
  isSecretName: (name: string) => boolean,
  onRedact: (value: string) => void,
): string {
  if (!TRIGGER.test(text)) return text;
  let out = text;
  for (const rule of RULES) {
    out = out.replace(rule.re, (m: string, ...groups: unknown[]) => {
      const value = String(groups[rule.value - 1] ?? '');
      if (rule.name !== undefined && !isSecretName(String(groups[rule.name - 1] ?? '').replace(/^[^A-Za-z_]+/, ''))) return m;
      const bare = value.replace(/^["']|["']$/g, '');
      // `vault login TOKEN`, `IDENTIFIED BY 'PASSWORD'`: a placeholder in upper case, as docs write them.
      if (!accept(bare) || bare.length < 4 || /^[A-Z_]+$/.test(bare)) return m;
      onRedact(bare);
      const q = /^["']/.test(value) ? value[0] : '';
      return `${m.slice(0, m.length - value.length)}${q}${marker}${q}`;
    });
  }
  return out;
}

/** `printf [-v VAR] FORMAT ARGS…` up to the end of the command. */
const PRINTF = /\bprintf\s+(?:-v\s+\S+\s+)?("[^"\n]*"|'[^'\n]*'|[^\s"'`;|&)<>]+)((?:[ \t]+(?:"[^"\n]*"|'[^'\n]*'|[^\s"'`;|&)<>]+))*)/g;

/**
 * A printf whose format cuts a token (`printf 'ghp_%s\n' REST`, `printf '%s_%s' ghp ABC…`): the format's
 * conversions are filled with the arguments, and when the filled text holds a secret (`redactShapes`), the format
 * and arguments are replaced by the marker the secret got. Pure.
 */
export function redactPrintfFormats(text: string, redactShapes: (s: string) => string): string {
  if (!text.includes('printf')) return text;
  return text.replace(PRINTF, (m: string, format: string, rest: string) => {
    if (!format.includes('%')) return m;
    const args = [...rest.matchAll(/"([^"\n]*)"|'([^'\n]*)'|(\S+)/g)].map((a) => a[1] ?? a[2] ?? a[3] ?? '');
    let i = 0;
    const filled = format.replace(/^["']|["']$/g, '').replace(/%[-+ #0-9.]*[sbdq]/g, () => args[i++] ?? '');
    if (i === 0) return m;
    const redacted = redactShapes(filled);
    const mark = /\[REDACTED:[a-z_]+\]/.exec(redacted);
    if (redacted === filled || !mark) return m;
    return `printf ${mark[0]}`;
  });
}
