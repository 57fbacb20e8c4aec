import type { RawMemory } from '../../types.js';
import { splitCommand, workSegments } from '../commands.js';
import { commandOf, type RolloutView } from '../rollout.js';

const MARKER = /\[REDACTED:[a-z_]+\]/;
const NAMED = /\b([A-Z][A-Z0-9_]{2,})\s*[=:]\s*["']?[^\n]*\[REDACTED:[a-z_]+\]/g;
/**
 * mnemara's own variables in the sandbox (`MNEMARA_EXEC_TOKEN`, which tags a command's processes): `env` shows
 * them in every run, redacted, and they are not the workspace's secrets, so they never make a pitfall.
 */
const OWN_VARIABLE = /\bMNEMARA_[A-Z0-9_]*\s*[=:]\s*["']?\[REDACTED:[a-z_]+\]["']?/g;
/** Words for credentials in the languages the rules know (en, de, fr, es, it, pt, nl, pl, ru, zh, ja, ko). */
const SECRET_TALK =
  /\b(credentials?|secrets?|api[ _-]?keys?|access keys?|tokens?|passwords?|passphrases?|private keys?|live keys?|prod(uction)? (keys?|database|bucket|account)|Zugangsdaten|Geheimnis\w*|Passw(ö|oe)rter|identifiants|mots? de passe|cl(é|e)s? d'API|credenciales|contrase(ñ|n)as?|claves?|credenziali|chiavi|senhas?|credenciais|wachtwoord\w*|sleutels?|has(ł|l)o|klucz\w*|пароль|пароли|ключ\w*|токен\w*|секрет\w*)\b|密钥|凭据|凭证|密码|令牌|シークレット|パスワード|認証情報|トークン|비밀번호|자격 증명|토큰/i;

/** Words that make a sentence a rule (en, de, fr, es, pt, it, nl, pl, ru, zh, ja, ko): must, never, keep … out. */
const NORMATIVE =
  /\b(must|mustn't|should|shouldn't|never|do not|don't|need to|has to|have to|keep \w+ out|only (use|fake)|müssen|muss|darf nicht|dürfen nicht|niemals|nie|doit|doivent|jamais|ne pas|debe|deben|nunca|no (se )?deben?|deve|devem|mai|moet|moeten|nooit|musi|nigdy|nie wolno)\b|(?<!\p{L})(muszą|não pode|não devem?|должны?|должен|нельзя|никогда|не (?:использ|копир|коммит))(?!\p{L})|不要|不能|必须|禁止|絶対|してはいけない|しないで|必ず|하지 마|안 된다|반드시/iu;
/** The agent telling what it did or will do with them itself (I will not use them, I did not copy them). */
const ABSTAINS = /\b(I|I'll|I've|I'm|we'll|we)\b[^.;]*\b(not|never|won't|didn't|don't|no)\b|\b(I|we) (won't|didn't|don't|will not|did not|do not|never)\b|\bnot needed\b/i;

/** A text cut into its sentences, for rules that read one statement at a time. */
function sentences(text: string): string[] {
  return text.split(/(?<=[.!?。！？])\s*|\n+/).filter((t) => t.trim().length > 0);
}

const ENV_PRINTERS = new Set(['env', 'printenv', 'set', 'export', 'declare']);

/** Files that hold credentials by design: dotenv files, credential and secret stores, keys, tool login files. */
const CREDENTIAL_FILE = /(^|\/)(\.env([.\w-]*)?|[\w.-]*credentials?[\w.-]*|[\w.-]*secrets?[\w.-]*|\.netrc|\.npmrc|\.pypirc|\.pgpass|id_(rsa|dsa|ecdsa|ed25519)|[\w.-]+\.(pem|key|p12|pfx))$/i;

/**
 * Secrets the run's commands printed (found as redaction markers in the tool output, so after `redact`
 * ran): a fact naming where they live and the variables by name only, so that later runs keep them out of
 * code, tests and logs. The values never reach this function's output: the view is already redacted.
 * A redaction is never by itself the reason (issue 12): only the environment (`env`, `printenv` …) and files
 * that hold credentials by design (`.env*`, `*credentials*`, `*.pem`, `.netrc` …) count. A marker in a
 * Makefile, a README, source code or a build log is as likely a documented local URL or a type annotation
 * the redactor was careful about, and teaches nothing. Nor does a secret the run only printed: the task or the
 * agent's own words must be about credentials (`SECRET_TALK`).
 */
export function secretsSeen(view: RolloutView): RawMemory[] {
  const names = new Set<string>();
  const places = new Set<string>();
  const lines: number[] = [];
  // Where the agent's words come right after a command that printed secrets (before its next call).
  const windows: Array<[number, number]> = [];
  for (const step of view.steps) {
    const output = (step.output ?? '').replace(OWN_VARIABLE, '');
    if (!MARKER.test(output)) continue;
    const before = places.size;
    const cmd = commandOf(step);
    if (cmd) {
      for (const seg of workSegments(splitCommand(cmd)).concat(splitCommand(cmd).filter((s) => s.category === 'inspect'))) {
        if (ENV_PRINTERS.has(seg.program) && seg.core.split(/\s+/).length <= 2) places.add('the environment');
        const operands = seg.args.filter((a) => !a.startsWith('-'));
        const file = /^(cat|head|tail|less|more|bat)$/.test(seg.program) ? operands[0] : /^(grep|rg)$/.test(seg.program) ? operands[1] : undefined;
        if (file && !file.startsWith('-') && CREDENTIAL_FILE.test(file)) places.add(file.replace(/^\/workspace\//, ''));
      }
    } else if (typeof step.input.path === 'string' && CREDENTIAL_FILE.test(step.input.path)) {
      places.add(String(step.input.path).replace(/^\/workspace\//, ''));
    }
    if (places.size === before && !places.has('the environment')) continue;
    for (const m of output.matchAll(NAMED)) names.add(m[1]!);
    windows.push([step.at, view.steps[step.index + 1]?.at ?? Infinity]);
    lines.push(step.callLine);
    if (step.resultLine) lines.push(step.resultLine);
  }
  // Secrets a command happened to print are not a lesson (every sandbox has some): only when the run dealt with
  // them — the task or the agent's own words are about credentials — is keeping them out worth a memory.
  // The agent's words count when they are about these secrets (name one or where they are, or come right after
  // the command that printed them): "plain `terraform plan` has no credentials", later, is about the tool.
  const about = (s: { text: string; at: number }) =>
    [...names, ...places].some((n) => n !== 'the environment' && s.text.includes(n)) || windows.some(([a, b]) => s.at > a && s.at < b);
  // And only words that set a rule for the work ("the tests must use fake ones"): an agent saying it will not use
  // them ("I did not copy them anywhere") kept its own caution, which teaches the next run nothing.
  const rule = (text: string) => sentences(text).some((t) => SECRET_TALK.test(t) && NORMATIVE.test(t) && !ABSTAINS.test(t));
  if (lines.length === 0 || (!view.said.some((s) => rule(s.text) && about(s)) && !rule(view.task))) return [];
  const where = places.size ? [...places].slice(0, 4).join(' and ') : 'tool output of this workspace';
  const named = names.size ? ` (${[...names].slice(0, 8).join(', ')})` : '';
  return [
    {
      kind: 'pitfall',
      text: `Secrets are present in ${where}${named}; values were redacted. Keep them out of code, tests, logs and commits, and do not let tests reach the services they point at.`,
      evidence: { lines },
      importance: 4,
      keywords: ['secrets', 'credentials', ...[...names].slice(0, 5).map((n) => n.toLowerCase())],
    },
  ];
}
