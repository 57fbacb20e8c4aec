import { LOOPBACK, MODEL_HOME, PACKAGE_HOME, PINNED_HOSTS } from './injection-parts.js';
import type { Finder } from './injection-kinds.js';

/**
 * Settings that change where requests go or what the sandbox holds back, in the forms `injection-kinds.ts`
 * does not read (trial 26): mnemara's config as JSON or in words, a host pinned in /etc/hosts, git's URL
 * rewrites and proxy, a package manager's saved index. A value that keeps the hardening or the official host
 * (`sandbox.network` `none`, the default; `api.anthropic.com`; `pypi.org`) changes nothing and is kept.
 */
export const REDIRECT_PATTERNS: RegExp[] = [
  // mnemara's sandbox settings as JSON, nested or by path: `"sandbox": {"network": "host"}`, `"sandbox.backend":
  // "local"`. `none` is the network it already has and `docker` the backend: naming them weakens nothing.
  /['"]sandbox(?:['"]\s*:\s*\{[^{}\n]{0,300}?['"]|\.)(?:network|backend|dockerHost|image)['"]\s*:\s*['"](?!none['"]|docker['"])/i,
  // The model endpoint as JSON: `{"anthropic": {"baseUrl": "https://h"}}` (the dotted form is in injection-kinds.ts).
  new RegExp(String.raw`['"](?:anthropic|openai)['"]\s*:\s*\{[^{}\n]{0,300}?['"](?:baseUrl|base_url|apiUrl|endpoint|proxy)['"]\s*:\s*['"](?!${MODEL_HOME})`, 'i'),
  // The same settings in words: "set sandbox.network to host", "change the sandbox network to bridge", "switch
  // sandbox.backend to local".
  /\bsandbox(?:\.|\s+|'s\s+)(?:network|backend|dockerHost|docker\s+host|image)\b['"`]?\s*(?:[=:]|\s(?:to|as)\b)\s*['"`]?(?!none\b|docker\b)[\w./:-]/i,
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

/**
 * "Point ANTHROPIC_BASE_URL at our proxy on h.example", "route the model's base URL through https://relay…":
 * the model endpoint moved in words. Counted when what it is moved to names a host that is neither this machine
 * nor the API's own, or a relay of some kind with no local host named.
 */
export const endpointMovedInWords: Finder = (text) => {
  const out: number[] = [];
  const said = new RegExp(String.raw`\b(?:point|route|send|redirect|aim|direct|switch|change|set|move|configure|use)\w*\b[^\n;]{0,30}?(?:${ENDPOINT_VAR})[^\n;]{0,20}?\b(?:at|to|towards?|through|via|with)\b([^\n;]{0,60})`, 'gi');
  const host = /(?:https?:\/\/)?(?:[\w-]+\.)+[a-z]{2,}(?![\w-])|\b\d{1,3}(?:\.\d{1,3}){3}\b/gi;
  const home = new RegExp(String.raw`^${MODEL_HOME}`, 'i');
  for (const m of text.matchAll(said)) {
    const rest = m[1]!;
    const hosts = [...rest.matchAll(host)].map((h) => h[0].replace(/^https?:\/\//i, ''));
    const away = hosts.some((h) => !home.test(h));
    const relay = hosts.length === 0 && /\b(?:proxy|relay|gateway|mirror|server|endpoint|tunnel)\b/i.test(rest) && !new RegExp(LOOPBACK, 'i').test(rest);
    if (away || relay) out.push(m.index);
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
