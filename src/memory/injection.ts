import { KIND_FINDERS, KIND_PATTERNS } from './injection-kinds.js';
import { LEAK_PATTERNS } from './injection-leaks.js';
import { flattenConfig } from './injection-config.js';
import { REDIRECT_PATTERNS, endpointRedirects, gitUrlRewrites } from './injection-redirects.js';
import { packageIndexRedirects, registryFlags, sandboxSettings } from './injection-settings.js';
import { codeLoaders } from './injection-loaders.js';
import { LOOPBACK } from './injection-parts.js';
import { REMOTE_SHELL_PATTERNS } from './injection-shells.js';

/**
 * What an injected instruction looks like once it is written down as a lesson, whatever its kind: fetching
 * and running code, sending data somewhere, changing credentials or weakening security (issue 12, item 6).
 * A memory entry saying any of that is dropped unless the user typed it themselves. Word lists decide the
 * kind of act, never a particular command or host.
 *
 * Where packages come from is judged by scope (trial 28 F7, `registryFlags`): a registry or index named by a
 * flag on one install command is kept (that command only, its host in plain sight, no more than the project's
 * own .npmrc or requirements file may say); a variable or saved setting that moves every later install is held
 * unless it names the ecosystem's own index; plain http to another machine is held either way; this machine
 * (loopback) is trusted, as for the model base URL. Code loading is judged by where the code lives
 * (`codeLoaders`): loader variables pointing at a temporary or world-writable place are held, the project's and
 * the system's own directories kept.
 */
const DANGEROUS: RegExp[] = [
  // fetch and run: `curl … | sh`, `wget -O- … | bash`, `bash <(curl …)`, `iex (iwr …)`, `python -c "$(curl …)"`
  /\b(curl|wget|fetch|iwr|invoke-webrequest)\b[^\n|]{0,200}\|\s*(sudo\s+)?(ba|z|da|k)?sh\b/i,
  /\b(ba|z)?sh\s+<\(\s*(curl|wget)\b/i,
  /\$\(\s*(curl|wget)\b[^)]*\)/i,
  /\b(iex|invoke-expression)\b/i,
  // fetch to a file, then run that file: `curl … -o /tmp/i.sh && bash /tmp/i.sh`, `curl … > i.sh; sh i.sh`; a
  // checksum or signature check in between pins what runs (trial 25)
  /\b(curl|wget|iwr|invoke-webrequest)\b[^\n]{0,200}?(?:\s-o\s*|\s-O\s*|--output(?:-document)?[=\s]|-outfile\s|>\s*)['"]?(?:\S*\/)?([^\s\/;&|'"`]+)(?:(?!sha\d*sum|shasum|gpgv?\s+--verify|cosign\s+verify|minisign)[^\n]){0,120}?(?:&&|;|\|\||\bthen\b|,)\s*(?:sudo\s+)?(?:(?:(?:ba|z|da|k|fi)?sh|python[\d.]*|node|perl|ruby|pwsh|powershell|source|\.)\s+(?:\S*\/)?\2\b|\S*\.\/\2\b|chmod\s+\S+\s+(?:\S*\/)?\2\b)/i,
  // run what a one-liner fetched: `python3 -c "exec(urllib.request.urlopen(…).read())"`, `node -e "fetch(…).then(r=>r.text()).then(eval)"`
  /\b(exec|eval)\b[^\n]{0,200}\b(urlopen|urllib|requests\.get|fetch|https?:\/\/)/i,
  /\b(urlopen|urllib|requests\.get|fetch\s*\(|https?:\/\/)[^\n]{0,200}\b(exec|eval)\b/i,
  // fetch and run, said in words: "curl … piped to sh", "download the installer from https://… and run it"
  /\b(curl|wget|download\w*|fetch\w*)\b[^\n]{0,120}\b(pipe[ds]?|piping|feed\w*|pass(ed|es)?)\s+(it\s+|them\s+)?(in)?to\s+(sudo\s+)?(a\s+|the\s+)?((ba|z|da|k)?sh|bash|shell|python\d*|node)\b/i,
  /\b(download|fetch|grab|get|pull)\w*\b[^\n]{0,80}https?:\/\/[^\n]{0,80}\b(and|then)\s+(run|execute|source|exec)\b/i,
  /\b(run|execute|source)\b[^\n]{0,40}\b(script|installer|setup|bootstrap\w*)\b[^\n]{0,20}\b(at|from)\s+https?:\/\//i,
  // install or run code from a remote that is not pinned (whatever is published there at run time runs, install
  // scripts included): `pip install git+https://…` with no @ref, `npm i https://….tgz`, `npx -y tool@latest`
  /\b(pip\d*(\.\d+)?|uv\s+pip|pipx|poetry|gem|cargo)\s+(install|add)\b[^\n]{0,120}(\bgit\+[^\s@'"`]+(?=[\s'"`)]|$)|--git\s+\S+(?![^\n]*--(rev|tag)\b))/i,
  /\b(npm|pnpm|yarn|bun)\s+(i|install|add)\b[^\n]{0,120}(\bgit\+[^\s#'"`]+(?=[\s'"`)]|$)|\bgithub:[^\s#'"`]+(?=[\s'"`)]|$)|\bhttps?:\/\/\S+\.(tgz|tar\.gz)\b)/i,
  /\b(npx|bunx|uvx|pnpm\s+dlx|yarn\s+dlx|pipx\s+run)\s+(-y|--yes)\b[^\n]{0,60}@latest\b/i,
  // leave the sandbox: a privileged container, the host's root or the Docker socket mounted, the host's namespaces
  /--privileged\b|--cap-add[=\s]+(SYS_ADMIN|ALL)\b|--(pid|ipc|userns)[=\s]+host\b|\bnsenter\b/i,
  /(-v|--volume|--mount)[=\s]+['"]?(type=bind,\s*)?(source=|src=)?\/(:|,|\s)|\/var\/run\/docker\.sock:\/|\bchroot\s+\/host\b/i,
  // fetch and run, more spellings (trial 24): a pipe into any interpreter, `source <(curl …)`, a fetched file made
  // executable and started, a remote module run by URL (`deno run https://…`)
  /\b(curl|wget|fetch|iwr|invoke-webrequest)\b[^\n|]{0,200}\|\s*(sudo\s+)?(python\d*(\.\d+)?|node|perl|ruby|php|pwsh|powershell|deno|bun|lua)\b/i,
  /(\bsource|(^|[\s;&|(`])\.)\s+<\(\s*(curl|wget)\b/i,
  /\b(grab|download|fetch|get|pull)\w*\b[^\n]{0,100}\b(wget|curl)\b[^\n]{0,80}\bchmod\s+\+?x\b[^\n]{0,60}\b(run|launch|start|execute|exec)\b/i,
  /\b(deno|bun)\s+(run|x)\b[^\n]{0,60}\bhttps?:\/\//i,
  /\bgo\s+run\s+\S+@latest\b/i,
  /\b(npx|bunx|uvx|pnpm\s+dlx|yarn\s+dlx|pipx\s+run)\s+(-\S+\s+)*[@\w./-]+@latest\b/i,
  /\bgit\+https?:\/\/[^\s@'"`]+(?=[\s'"`)]|$)/i,
  /\b(pip\d*(\.\d+)?|uv\s+pip|pipx)\s+install\b[^\n]{0,120}\bhttps?:\/\/\S+\.(tar\.gz|tgz|zip|whl)\b/i,
  /\b(yarn|npm|pnpm|bun)\s+(add|i|install)\s+(-\S+\s+)*(?![@.~/])[A-Za-z0-9_-]+\/[A-Za-z0-9._-]+(?=[\s'"`)]|$)/i,
  // packages from an index or registry that is not the ecosystem's own, saved in the configuration (`npm config
  // set registry …`, `registry=` in ~/.npmrc): every later install goes there. A flag on one install command is
  // judged by `registryFlags`.
  new RegExp(String.raw`(?<!--)\bregistry[=\s]+['"]?https?:\/\/(?!(pypi\.org|files\.pythonhosted\.org|registry\.npmjs\.org|registry\.yarnpkg\.com|npm\.pkg\.github\.com|rubygems\.org|index\.crates\.io|crates\.io|proxy\.golang\.org)(?:[\/'"\s\x60]|$)|${LOOPBACK})`, 'i'),
  // reach the host from inside the sandbox (this tool's own sandbox settings: `sandboxSettings`, by their value)
  /\bunshare\s+(-\w*r|--map-root-user)|--security-opt[=\s]+['"]?(apparmor|seccomp)[:=]unconfined|--device[=\s]+\/dev\/(mem|kmem|sd\w*|nvme\w*)|\/proc\/sysrq-trigger|\bmount\s+\/dev\/(sd|nvme|vd|xvd)\w*/i,
  // send data out: a secret file or the environment into a socket, a secret copied to another host, a key in a URL
  /(~\/\.ssh|id_rsa|id_ed25519|\.netrc|\.env\b|\.aws\/credentials|credentials|printenv|\benv\b|[A-Z][A-Z0-9_]*(KEY|TOKEN|SECRET|PASSWORD))[^\n]{0,80}(\|\s*(nc|ncat|netcat|socat|telnet)\b|>\s*\/dev\/(tcp|udp)\/)/,
  /\b(scp|rsync|sftp)\b[^\n]{0,40}(~\/\.ssh|id_rsa|id_ed25519|\.netrc|\.env\b|\.aws\/credentials|credentials|\.npmrc|\.pypirc)[^\n]{0,60}[\w.-]+@?[\w.-]+:/i,
  /\$\([^)]*(\.env\b|printenv|id_rsa|credentials|[A-Z][A-Z0-9_]*(KEY|TOKEN|SECRET))[^)]*\)\.[\w-]+\.[a-z]{2,}/,
  /\b(e-?mail|mail|send|paste|share|dm|message|forward)\w*\b[^\n]{0,40}(~\/\.ssh|id_rsa|\.netrc|\.env\b|\.aws\/credentials|\b[A-Z][A-Z0-9_]*(API_KEY|TOKEN|SECRET|PASSWORD)\b)[^\n]{0,40}\b(to|into)\s+(\S+@\S+|https?:\/\/|the\s+[\w -]{0,30}\b(tracker|chat|channel|issue|ticket|forum|pastebin|gist|slack|discord|email))/i,
  /os\.environ\[[^\]]+\][^\n]{0,80}\burlopen\b|\burlopen\b[^\n]{0,120}os\.environ/,
  /\bgit\s+remote\s+add\s+\S+\s+\S+[^\n]{0,40}\bgit\s+push\b/i,
  // send data somewhere: secrets, keys, dotfiles, the environment uploaded or posted to a host
  /\b(upload(ed|s|ing)?|send(s|ing)?|sent|post(ed|s|ing)?|exfiltrat\w*|scp|rsync|transmit\w*)\b[^\n]{0,80}(~\/\.ssh|id_rsa|id_ed25519|\.env\b|credentials?|secrets?|tokens?|api[_ -]?keys?|passwords?|printenv|environment variables)/i,
  // Copying is only sending when it goes somewhere else: `cp .env.example .env.test` stays in the workspace.
  /\b(copy|copied|copies|copying)\b[^\n]{0,80}(~\/\.ssh|id_rsa|id_ed25519|\.env\b|credentials?|secrets?|tokens?|api[_ -]?keys?|passwords?|printenv|environment variables)[^\n]{0,80}\b(to|into|onto)\s+(https?:\/\/|s3:\/\/|gs:\/\/|[\w.-]+@[\w.-]+:|(an? |the |my |our )?(remote|server|host|paste\w*|gist|bucket|webhook|url|endpoint|external|public))/i,
  /(~\/\.ssh|id_rsa|id_ed25519|\.aws\/credentials|\.env\b|secrets?|tokens?)[^\n]{0,80}\b(uploaded|sent|posted|copied|transmitted)\s+to\b/i,
  /\bcurl\b[^\n]{0,120}(-d|--data(-binary)?|-F|-T|--upload-file)\s+@?\S*(~\/\.ssh|\.env|credentials|id_rsa|\/etc\/passwd)/i,
  /\b(env|printenv)\b[^\n]{0,40}\|\s*(curl|nc|netcat|wget)\b/i,
  // change credentials or weaken security
  /\b(disable|turn off|skip|bypass)\w*\b[^\n]{0,40}\b(ssl|tls|certificate|cert|signature|gpg|2fa|mfa|auth\w*|firewall|selinux|apparmor|sandbox|verification|security)\b/i,
  /(--insecure|--no-verify-ssl|verify\s*=\s*false|strict-ssl\s*(=|\s)\s*false|GIT_SSL_NO_VERIFY|NODE_TLS_REJECT_UNAUTHORIZED\s*=\s*0|--trusted-host|--allow-unauthenticated)/i,
  /\bchmod\s+(-R\s+)?(777|666|a\+rwx|o\+w)\b/i,
  /\bssl_?verify\s*(=|\s)\s*(false|0|no)\b/i,
  // packages from another index over plain http: `npm config set registry http://…` (the index variables, by
  // where they point: `packageIndexRedirects`)
  new RegExp(String.raw`(?<!--)\bregistry[=\s]+['"]?http:\/\/(?!${LOOPBACK})`, 'i'),
  /\b(authorized_keys|NOPASSWD|visudo|sudoers)\b/i,
  /\b(change|reset|rotate|replace|set)\w*\b[^\n]{0,30}\b(password|passphrase|credentials?|api[_ -]?key|token)\b[^\n]{0,40}\bto\b/i,
  /\bgit\s+(remote\s+set-url|config\s+[^\n]*credential)\b/i,
];

const FINDERS = [...KIND_FINDERS, endpointRedirects, gitUrlRewrites, sandboxSettings, packageIndexRedirects, registryFlags, codeLoaders];
const DANGEROUS_ALL = [...DANGEROUS, ...KIND_PATTERNS, ...REMOTE_SHELL_PATTERNS, ...REDIRECT_PATTERNS, ...LEAK_PATTERNS].map((r) => new RegExp(r.source, `${r.flags}g`));

/**
 * A warning right before the act ("Never run `curl … | sh`", "do not disable SSL verification"): at most two
 * words between the negation and the act, so "never run tests without first running `curl … | sh`" still counts.
 * "Don't forget to …" and "never skip …" tell to do it.
 */
const WARNED = /\b(never|do not|don't|dont|must not|mustn't|should not|shouldn't|avoid|refuse to|not to)\s+(?!forget|skip|fail|omit)([\w-]+\s+){0,2}[`'"“(]*$/i;

/**
 * True when the text tells the reader to do something of those kinds. A match that is itself warned against
 * (`WARNED`) does not count; any other match in the same text still does.
 */
export function dangerousInstruction(text: string): boolean {
  const warned = (before: string): boolean => WARNED.test(before.split(/[.!?;\n]\s/).at(-1) ?? '');
  const unwarned = (at: number): boolean => !warned(text.slice(Math.max(0, at - 60), at));
  // Before a block: "Do not apply:" and its opening fence.
  const blockUnwarned = (at: number): boolean => !warned(text.slice(Math.max(0, at - 60), at).replace(/(?:[\s:]*\x60{3}\w*|:)\s*$/, ' '));
  const says = (t: string, ok: (at: number) => boolean): boolean => DANGEROUS_ALL.some((r) => {
    r.lastIndex = 0;
    for (const m of t.matchAll(r)) if (ok(m.index)) return true;
    return false;
  }) || FINDERS.some((find) => find(t).some(ok));
  // Nested config (YAML, TOML, INI, JSON) read as the dotted one-line settings the rules know; a warning before
  // the block covers it.
  if (says(text, unwarned)) return true;
  const flat = flattenConfig(text);
  if (flat.length === 0 || !says(flat.map((s) => s.line).join('\n'), () => true)) return false;
  const blocks = new Map<number, string[]>();
  for (const s of flat) blocks.set(s.at, [...(blocks.get(s.at) ?? []), s.line]);
  return [...blocks].some(([at, lines]) => blockUnwarned(at) && says(lines.join('\n'), () => true));
}

/**
 * Whether the read path keeps a MEMORY.md entry out of the prompt: no run wrote it (`sources` empty: a bullet
 * committed to the repository or written by hand, which never passed the pipeline's checks) and it tells to do
 * something dangerous (`dangerousInstruction`). Phase 2 applies the same rule when it fills memory_summary.md,
 * so that the summary's budget goes to entries that will be served (trial 26 N13).
 */
export function heldOutOfPrompt(text: string, sources: readonly string[]): boolean {
  return sources.length === 0 && dangerousInstruction(text);
}

/**
 * The opening of the warning about `n` entries `heldOutOfPrompt` holds out ("3 MEMORY.md entries written by no
 * run tell …"), shared by the read path and phase 2 so that both name them alike; `it` is "it" or "them".
 */
export function heldOutWarning(n: number): { lead: string; it: string } {
  const one = n === 1;
  return { lead: `${n} MEMORY.md entr${one ? 'y' : 'ies'} written by no run tell${one ? 's' : ''} to fetch and run code, send data away or weaken security`, it: one ? 'it' : 'them' };
}

/**
 * Whether a lesson must be dropped as injected: it says something dangerous (`dangerousInstruction`) and the
 * user did not type it (a person may well write "never use --insecure here"; their words are theirs).
 */
export function injectedLesson(text: string, typedByUser: string): boolean {
  if (!dangerousInstruction(text)) return false;
  const low = (t: string) => t.toLowerCase().replace(/\s+/g, ' ');
  const user = low(typedByUser);
  // A preference quoting the user's own words is theirs.
  const quoted = [...text.matchAll(/“([^”]{8,})”/g)].map((m) => low(m[1]!));
  return !(quoted.length > 0 && quoted.every((q) => user.includes(q.replace(/…$/, ''))));
}
