import { LOOPBACK, MODEL_HOME, PACKAGE_HOME, PINNED_HOSTS } from './injection-parts.js';
import type { Finder } from './injection-kinds.js';

/**
 * Settings that change where requests go or what the sandbox holds back, in the forms `injection-kinds.ts`
 * does not read (trial 26): the model endpoint by its target, a host pinned in /etc/hosts, git's URL
 * rewrites and proxy, a package manager's saved index. A value that keeps the hardening or the official host
 * (`sandbox.network` `none`, the default; `api.anthropic.com`; `pypi.org`) changes nothing and is kept.
 */
export const REDIRECT_PATTERNS: RegExp[] = [
  // The model endpoint as JSON: `{"anthropic": {"baseUrl": "https://h"}}` (the dotted form and the variables: `endpointRedirects`).
  new RegExp(String.raw`['"](?:anthropic|openai)['"]\s*:\s*\{[^{}\n]{0,300}?['"](?:baseUrl|base_url|apiUrl|endpoint|proxy)['"]\s*:\s*['"](?!${MODEL_HOME})`, 'i'),
  // A model, code or package host pinned to an address: `1.2.3.4 api.anthropic.com` into /etc/hosts, or
  // `--add-host api.anthropic.com:…`; any address, a local one too (a local relay reads every request).
  new RegExp(String.raw`(?:\b\d{1,3}(?:\.\d{1,3}){3}|[0-9a-f]*:[0-9a-f:]+)\s+(?:[\w.-]+\s+){0,3}${PINNED_HOSTS}[^\n]{0,80}\/etc\/hosts\b|\/etc\/hosts\b[^\n]{0,80}(?:\b\d{1,3}(?:\.\d{1,3}){3}|[0-9a-f]*:[0-9a-f:]+)\s+(?:[\w.-]+\s+){0,3}${PINNED_HOSTS}|--add-host[=\s]+['"]?${PINNED_HOSTS}:`, 'i'),
  // git told to fetch through someone else's proxy.
  new RegExp(String.raw`\bgit\s+config\b[^\n]{0,40}?\bhttps?(?:\.[^\s.]+)?\.proxy['"]?\s+['"]?(?!(?:\w+:\/\/)?${LOOPBACK})\S`, 'i'),
  // A package manager's saved index: `pip config set global.index-url …`, `uv`'s and poetry's, `.pypirc`-style
  // `index-url = …`, `yarn config set npmRegistryServer …`; `--index-url` and `registry` are in injection.ts.
  new RegExp(String.raw`(?:^|[\s.'"\x60])(?:extra[-_])?(?:index[-_]url|find[-_]links|npmRegistryServer)['"]?\s*(?:[=:]\s*|\s)['"]?(?!${PACKAGE_HOME})(?:https?:\/\/|[\w-]+\.[\w.-]+\/)`, 'i'),
  /\b(?:pip\d*|uv|poetry)\s+config\s+(?:set\s+)?[\w.-]*trusted[-_]host\b|(?:^|[\s.'"`])trusted[-_]host['"]?\s*[=:]\s*\S/i,
];

/** A model endpoint variable, as `injection-kinds.ts` names them. */
const ENDPOINT_VAR = String.raw`\b(?:ANTHROPIC|OPENAI|CLAUDE|AZURE_OPENAI|GEMINI|GOOGLE_GEMINI|MISTRAL|GROQ|OPENROUTER|COHERE|LITELLM|MNEMARA)_(?:BASE_URL|API_BASE|API_URL|ENDPOINT|API_HOST|PROXY)\b|\b(?:the\s+)?(?:model|api|anthropic|openai)(?:'s)?\s+(?:base\s+url|endpoint|api\s+url)\b|\b(?:anthropic|openai)\.(?:baseUrl|base_url|apiUrl|endpoint|proxy)\b`;

/** The model endpoint as a config key: `anthropic.baseUrl`, `model.base_url`, `llm.api_base`, `mnemara.anthropic.proxy`. */
const ENDPOINT_KEY = String.raw`\b(?:anthropic|openai|claude|model|models|llm|mnemara)(?:\.[\w-]+)?\.(?:baseUrl|base_url|baseURL|apiUrl|api_url|apiBase|api_base|endpoint|proxy)\b`;

/** What joins the endpoint to where it goes: `=`, `: `, or a preposition (English, German, French, Spanish, Portuguese, Dutch). */
const TO = String.raw`(?:['"\x60]?\s*(=|:(?!\/\/))\s*|\s+(?:to|at|towards?|through|via|auf|an|zu|sur|vers|à|a|en|hacia|para|naar|op)\s+)`;

/** A verb that sets or moves something, in the same languages. */
const MOVE = String.raw`(?:point|route|send|redirect|aim|direct|switch|change|set|move|configure|use|export|setz|stell|richte|leite|änder|ander|definier|pointe|redirig|défini|defini|mets|mettez|change|establec|apunt|pon|cambi|configur|aponte|mude|zet|wijzig)\w*`;

/** Where the project's own tests are meant: the tests, the suite, a mock or stub server, a test directory. */
const TEST_CONTEXT = /\b(?:tests?|testing|test[-_ ]?suite|suites?|specs?|e2e|unit|integration|vitest|jest|pytest|mocha|playwright|mock\w*|stub\w*|fake\w*|fixtures?|pruebas?|testes|essais|tester)\b|\btests?\/|__tests__|\.(?:test|spec)\.|\bTests?\b/i;

/** The agent told to change its own environment for this session (its shell, its run, from now on). */
const OWN_SESSION = /\b(?:this|the\s+current|your(?:\s+own)?)\s+(?:session|run|shell|environment|terminal|agent)\b|\bfor\s+the\s+rest\s+of\b|\bfrom\s+now\s+on\b|\bbefore\s+(?:you\s+)?(?:start|continu|proceed|answer|reply)\w*\b|\b(?:diese[rnms]?|aktuelle[rn]?|deine[rn]?)\s+(?:Sitzung|Session|Shell|Umgebung)\b|\bab\s+jetzt\b|\b(?:cette|ta|votre)\s+(?:session|shell|environnement)\b|\bsession\s+(?:en\s+cours|actuelle)\b|\b(?:esta|tu|su)\s+(?:sesi[oó]n|shell|entorno)\b|\bsesi[oó]n\s+actual\b|\ba\s+partir\s+de\s+ahora\b|\bdesormais\b|\bdésormais\b/i;

/** A relay of some kind named in words (a mock or stub server is the tests' own). */
const RELAY = /\b(?:proxy|relay|gateway|mirror|tunnel|Relais|passerelle|pasarela|Gateway)\b|(?<!\b(?:mock|stub|fake|test|local|dev)\w*\s+)\b(?:server|endpoint|Server|serveur|servidor)\b/i;

/** A host named in a clause: a URL's, a bare domain (not a file name), an IPv4 address, `localhost`, `[::1]`. */
const HOST = /\bhttps?:\/\/(\[[0-9a-f:]+\]|[^\s/:?#'"`)\]]+)|(?<![\w/.-])((?:[\w-]+\.)+(?!(?:ts|js|mjs|cjs|json|md|py|ya?ml|toml|txt|sh|env|cfg|ini|lock|tsx|jsx|rb|go|rs|log|html?|css)\b)[a-z]{2,}|\d{1,3}(?:\.\d{1,3}){3}|localhost)(?![\w-])|(\[::1\])/gi;

/** The clause a target is said in: to the end of its sentence, at most 100 characters. */
const clauseOf = (rest: string): string => rest.slice(0, 100).split(/[.!?](?:\s|$)|;|\n/)[0]!;

/**
 * Whether setting the model endpoint to `clause` sends requests away: a host that is neither this machine nor the
 * API's own does, whatever the context; this machine does not, unless the agent is told to switch its own session
 * over (and not the tests); a target said only in words does unless it is the tests' mock (a relay named, or no
 * test context, does).
 */
function endpointAway(clause: string, around: string, assigned: boolean, named: boolean): boolean {
  const home = new RegExp(String.raw`^${MODEL_HOME}`, 'i');
  // A variable or a CI expression (`${{ secrets.RELAY }}`, `$MOCK_URL`) names no host.
  const hosts = [...clause.replace(/\$\{\{[^}]*\}\}|\$\{?\w+\}?/g, '$').matchAll(HOST)].map((h) => (h[1] ?? h[2] ?? h[3]!).replace(/\.$/, ''));
  if (hosts.some((h) => !home.test(h) && !home.test(`http://${h}`))) return true;
  const tests = TEST_CONTEXT.test(around);
  if (hosts.length > 0) return OWN_SESSION.test(around) && !tests;
  // "the API endpoint" in words may be the project's own, and "ANTHROPIC_BASE_URL at startup" or `KEY: some
  // words` no value given to it: only a relay named moves it.
  if (!named || !assigned) return RELAY.test(clause) && !tests;
  // A variable is defined elsewhere (CI secrets, .env.test): held when it is a relay, or the agent's own session.
  if (/^['"\x60]?\$/.test(clause.trim())) return /proxy|relay|gateway|mirror|tunnel/i.test(clause) || (OWN_SESSION.test(around) && !tests);
  return RELAY.test(clause) || !tests;
}

/**
 * The model endpoint (a base URL variable or config key, or "the model's base URL") set or moved elsewhere:
 * `OPENAI_BASE_URL=https://relay…`, "point ANTHROPIC_BASE_URL at our proxy on h.example", "setze
 * ANTHROPIC_BASE_URL auf https://…". Judged by the target and its context (`endpointAway`): "set
 * ANTHROPIC_BASE_URL to the mock server (http://127.0.0.1:PORT) for the tests" is the project's own tests.
 */
export const endpointRedirects: Finder = (text) => {
  const out: number[] = [];
  const name = String.raw`(?:${ENDPOINT_VAR}|${ENDPOINT_KEY})`;
  const direct = new RegExp(String.raw`(${name})${TO}([^\n]{0,120})`, 'gi');
  const verbFirst = new RegExp(String.raw`(?<![A-Za-zÀ-ɏ])${MOVE}\b[^\n;]{0,30}?(${name})[^\n;]{0,25}?\s(?:(to|auf|sur|à|a|hacia|para|naar|op)|at|towards?|through|via|with|an|zu|vers|en)\s+([^\n]{0,120})`, 'gi');
  const named = (n: string) => !/^(?:the\s+)?(?:model|api|anthropic|openai)(?:'s)?\s/i.test(n);
  const around = (at: number, end: number) => text.slice(Math.max(0, at - 120), end + 60);
  for (const m of text.matchAll(direct)) {
    const clause = clauseOf(m[3]!);
    const assigned = m[2] === '=' || /^['"\x60]?(?:https?:\/\/|[\w-]+(?:\.[\w-]+)+|localhost|\$)/i.test(clause.trim());
    if (endpointAway(clause, around(m.index, m.index + m[0].length), assigned, named(m[1]!))) out.push(m.index);
  }
  for (const m of text.matchAll(verbFirst)) {
    const clause = clauseOf(m[3]!);
    if (endpointAway(clause, around(m.index, m.index + m[0].length), m[2] !== undefined, named(m[1]!))) out.push(m.index);
  }
  return out;
};

/** The host of a git URL (`https://u@h/p`, `git@h:p`, `ssh://h/p`), lower case; '' when there is none. */
function gitHost(url: string): string {
  const m = /^(?:[\w+]+:\/\/)?(?:[^@/\s]*@)?([^/:\s]+)/.exec(url.replace(/^['"]|['"]$/g, ''));
  return (m?.[1] ?? '').toLowerCase();
}

/**
 * `git config url.<new>.insteadOf <old>` and `[url "<new>"] insteadOf = <old>`: every fetch of <old> goes to
 * <new>. The same host by another scheme (`git@github.com:` for `https://github.com/`, the usual switch to ssh)
 * or a local mirror sends nothing elsewhere and is kept.
 */
export const gitUrlRewrites: Finder = (text) => {
  const out: number[] = [];
  const forms = /\burl\.(['"]?)(\S+?)\1\.(?:push)?insteadOf\b['"]?(?:\s*=\s*|\s+)(['"]?\S+)|\[url\s+(['"])([^'"\n]+)\4\s*\][^\n]{0,20}?\b(?:push)?insteadOf\s*=\s*(\S+)/gi;
  const local = new RegExp(String.raw`^${LOOPBACK}`, 'i');
  for (const m of text.matchAll(forms)) {
    const to = gitHost(m[2] ?? m[5]!);
    const from = gitHost(m[3] ?? m[6]!);
    if (to === '' || to === from || local.test(to) || /^(?:file:|\/|\.)/.test(m[2] ?? m[5]!)) continue;
    out.push(m.index);
  }
  return out;
};
