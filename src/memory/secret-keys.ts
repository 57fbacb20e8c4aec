/**
 * Values under keys whose name says secret, in config files (issue 10, eighth trial, M2): JSON, YAML, INI/cfg/TOML,
 * `.env`, Java `.properties`, `.npmrc`, `.netrc`. A value with no provider prefix (`db_password: Tr0ub4dor&3x`)
 * has no shape the token rules see; only its key says what it is. The names are `secret-names.ts`'s and the values
 * `secret-values.ts`'s, as for every other assignment `redact.ts` takes; what this module adds is the file's form,
 * which settles what code-like text cannot: in a YAML or INI file `password: correcthorse` is a value, never a
 * TypeScript annotation, so a bare word counts there. Sources: YAML 1.2 block mappings, Python configparser (INI,
 * `=` or `:`), TOML 1.0 key/value pairs, java.util.Properties, npm-config (`.npmrc`), ftp(1) (`.netrc`).
 */
import { isSecretName } from './secret-names.js';
import { isSecretValue } from './secret-values.js';

/** How a config file's lines are read: `json` by `"key": "value"` pairs, `lines` by `key = value` / `key: value`, `netrc` by `password <value>` tokens. */
export type ConfigForm = 'json' | 'lines' | 'netrc';

/** A value under a secret-named key: the key (as written), its 1-based line, and the value's span in the text. */
export interface SecretKey {
  key: string;
  line: number;
  start: number;
  end: number;
}

/**
 * The form of a file by its name (`config/app.yaml` → `lines`), or `null` when it is not a config file this
 * module reads. Pure.
 */
export function configFormOfName(path: string): ConfigForm | null {
  const name = (path.split('/').pop() ?? '').toLowerCase();
  if (name === '.netrc' || name === '_netrc') return 'netrc';
  if (/\.(json|jsonc|json5)$/.test(name)) return 'json';
  if (/\.(ya?ml|ini|cfg|conf|toml|properties|env)$/.test(name) || /^\.env(\..+)?$/.test(name) || /^\.(npmrc|pypirc|yarnrc|pgpass-env)$/.test(name)) return 'lines';
  return null;
}

/** `key = value`, `export KEY=value`, `//registry/:_authToken=value`, `key: value`, `- KEY=value` (a compose environment list). */
const LINE = /^([ \t]*(?:\d+\t)?[ \t]*(?:-[ \t]+)?(?:export[ \t]+)?(?:\/\/[^\s=]*?:)?)(["']?)([A-Za-z_][\w.-]*)\2([ \t]*(?:=|:(?=[ \t]))[ \t]*)(.*)$/;

/** The value at the start of `rest` (quoted, or bare up to an inline comment), with its offset in `rest`; `null`: none to read. */
function valueOf(rest: string): { value: string; at: number } | null {
  const q = rest[0];
  if (q === '"' || q === "'") {
    const end = q === '"' ? /^"((?:\\.|[^"\\])*)"/.exec(rest) : /^'([^']*)'/.exec(rest);
    return end ? { value: end[1]!, at: 1 } : null;
  }
  // A block scalar, anchor, alias, tag, flow collection or inline table is not a plain value.
  if (/^[|>&*!{[]/.test(rest)) return null;
  const bare = rest.replace(/[ \t]+[#;].*$/, '').trimEnd();
  return { value: bare, at: 0 };
}

/** A name that says secret; `_auth` is npm's base64 `user:password`. */
const secretKey = (key: string): boolean => isSecretName(key) || key === '_auth';

/**
 * Every value in `text` under a key whose name says secret (`isSecretName`) that is a secret by the value rules
 * (`isSecretValue`, not strict: placeholders, references, empties, types and documented local development
 * defaults are not). Pure.
 */
export function findSecretKeys(text: string, form: ConfigForm): SecretKey[] {
  const out: SecretKey[] = [];
  const lineOf = (offset: number): number => text.slice(0, offset).split('\n').length;
  if (form === 'json') {
    for (const m of text.matchAll(/(["'])([A-Za-z_][\w.-]*)\1\s*:\s*"((?:\\.|[^"\\\n])*)"/g)) {
      const value = m[3]!;
      if (!secretKey(m[2]!) || !isSecretValue(value, false)) continue;
      const start = m.index! + m[0].length - value.length - 1;
      out.push({ key: m[2]!, line: lineOf(start), start, end: start + value.length });
    }
    return out;
  }
  let offset = 0;
  for (const [i, line] of text.split('\n').entries()) {
    const from = offset;
    offset += line.length + 1;
    if (form === 'netrc') {
      for (const m of line.matchAll(/(^|\s)(password|passwd)\s+(\S+)/g)) {
        if (!isSecretValue(m[3]!, false)) continue;
        const start = from + m.index! + m[0].length - m[3]!.length;
        out.push({ key: m[2]!, line: i + 1, start, end: start + m[3]!.length });
      }
      continue;
    }
    const m = LINE.exec(line.replace(/\r$/, ''));
    if (!m || !secretKey(m[3]!)) continue;
    const v = valueOf(m[5]!);
    if (!v || !isSecretValue(v.value, false)) continue;
    const start = from + m[1]!.length + m[2]!.length * 2 + m[3]!.length + m[4]!.length + v.at;
    out.push({ key: m[3]!, line: i + 1, start, end: start + v.value.length });
  }
  return out;
}

/** `text` with every value `findSecretKeys` finds replaced by `[REDACTED:password]` or `[REDACTED:secret]`. Pure; idempotent. */
export function redactSecretKeys(text: string, form: ConfigForm): string {
  let out = text;
  for (const k of findSecretKeys(text, form).reverse()) out = `${out.slice(0, k.start)}[REDACTED:${/pass/i.test(k.key) ? 'password' : 'secret'}]${out.slice(k.end)}`;
  return out;
}

/** A line of a config document: a section, a comment, `key = value`, `key: value` (or a bare `key:`), a list item. */
const DOC_LINE = /^(?:\[[^\]\n]+\]|[#;!].*|---|(?:-[ \t]+)?(?:export[ \t]+)?["']?[A-Za-z_][\w.-]*["']?[ \t]*(?:=.*|:(?:[ \t].*)?)|-[ \t].*)$/;

/**
 * The form of `text` when the whole of it is one config document (what `cat app.ini` prints, a heredoc's body, an
 * editor's `file_text`): two or more lines, each a section, comment, key/value pair or list item (a leading line
 * number of a numbered view is allowed; a YAML block scalar's lines are passed over), and none that ends or holds what code does (`;`, `,`, `{`, `(`, `=>`).
 * `null` otherwise: code is left to `redact.ts`'s stricter rules. Pure.
 */
export function configFormOfText(text: string): ConfigForm | null {
  if (!text.includes('\n') || text.length > 1024 * 1024 || !/pass|pwd|secret|token|key|credential|auth|salt/i.test(text)) return null;
  // Line by line, stopping at the first that is not config: most texts are not, and are long.
  let lines = 0;
  // A YAML block scalar's lines (`run: |` then shell lines, more indented) are its value, not mappings: passed over.
  let block = -1;
  for (let at = 0; at <= text.length; ) {
    const nl = text.indexOf('\n', at);
    const end = nl < 0 ? text.length : nl;
    const raw = text.slice(at, end).replace(/^[ \t]*\d+\t/, '');
    const l = raw.trim();
    at = end + 1;
    if (l === '') continue;
    const indent = raw.length - raw.trimStart().length;
    if (block >= 0 && indent > block) continue;
    block = /:[ \t]*[|>][-+0-9]*$/.test(l) ? indent : -1;
    if (!DOC_LINE.test(l) || /[;,{(]$|=>|\(\)|^[A-Za-z_][\w.]*\s*=\s*[A-Za-z_][\w.]*\(/.test(l)) return null;
    lines++;
  }
  return lines >= 2 ? 'lines' : null;
}

/**
 * Redacts values under secret-named keys in config documents inside `text`: the whole text when it is one
 * (`configFormOfText`), and each heredoc body (`cat > config/app.ini <<'EOF' … EOF`), read by its target's name
 * when that names a config file, else by its content. Pure; idempotent.
 */
export function redactConfigText(text: string): string {
  if (!text.includes('\n')) return text;
  const whole = configFormOfText(text);
  if (whole) return redactSecretKeys(text, whole);
  if (!text.includes('<<')) return text;
  return text.replace(/<<-?[ \t]*(['"]?)(\w+)\1[^\n]*\n([\s\S]*?)(?=\n[ \t]*\2(?:\s|$))/g, (m: string, _q: string, _tag: string, body: string, at: number) => {
    // The target is on the heredoc's own line, before or after `<<` (`cat > f <<EOF`, `cat <<EOF > f`).
    const line = text.slice(text.lastIndexOf('\n', at) + 1, at + m.length - body.length);
    const target = /(?:^|[^>])>>?[ \t]*["']?([^\s"';&|<>]+)/.exec(line)?.[1];
    const form = (target ? configFormOfName(target) : null) ?? configFormOfText(body);
    return form ? m.slice(0, m.length - body.length) + redactSecretKeys(body, form) : m;
  });
}
