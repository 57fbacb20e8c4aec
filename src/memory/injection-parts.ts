/**
 * Building blocks of the injection filter's kinds (`injection-kinds.ts`): what fetches from the network, what
 * runs code, what holds a secret, which hosts are this machine. Each is a regex source, so a kind is written
 * once as "source … sink" and every tool of either side is covered, not one command line.
 */

/** A command that fetches from the network (`busybox wget`, PowerShell's cmdlets and aliases included). */
export const FETCH = String.raw`\b(?:curl|wget|busybox\s+wget|fetch|iwr|irm|invoke-webrequest|invoke-restmethod|aria2c|xh|lwp-request|lynx\s+-source|w3m\s+-dump_source)\b`;

/** Every shell, including busybox's and the rarer ones (`ash`, `dash`, `mksh`, `fish`, `nu`). */
export const SHELLS = String.raw`(?:busybox\s+(?:a|ba|hu)?sh|(?:ba|z|da|k|c|tc|fi|a|mk|y|pdk)?sh|fish|nu|xonsh|elvish)`;

/** Interpreters that run a program read from stdin, a file or a process substitution. */
export const INTERP = String.raw`(?:python[\d.]*|pypy\d*|py|node(?:js)?|perl|ruby|php|pwsh|powershell|deno|bun|lua(?:jit)?|tclsh|Rscript|osascript|julia|groovy|ts-node|tsx)`;

/** What may stand before the runner without changing what runs: `sudo -E`, `sudo -u root`, `env A=1`, `doas`, `nohup`. */
export const PREFIX = String.raw`(?:(?:sudo|doas|env|nohup|exec|time|command|nice)(?:\s+(?:-u|--user)\s+\S+|\s+-{1,2}[\w=-]+|\s+[A-Za-z_]\w*=\S*)*\s+)*`;

/** A sink that runs what it is given as code: a shell, an interpreter, `xargs … sh`, `iex`, `source`. */
export const RUNNER = String.raw`${PREFIX}(?:${SHELLS}|${INTERP}|source|iex|invoke-expression|xargs\b[^|\n]{0,60}?\b(?:${SHELLS}|${INTERP}))\b`;

/** A check of what was fetched before it runs (checksum or signature): a download that passes one is pinned. */
export const VERIFIED = String.raw`sha\d*sum|shasum|md5sum|b2sum|gpgv?\s+--verify|gpgv\b|cosign\s+verify|minisign|signify|--checksum|Get-FileHash`;

/** Any character of one line, unless a checksum or signature check starts there. */
export const UNVERIFIED_CHAR = String.raw`(?:(?!${VERIFIED})[^\n])`;

/** This machine: a local test server may be reached, or set as a base URL, without sending anything away. */
export const LOOPBACK = String.raw`(?:localhost|127\.\d{1,3}\.\d{1,3}\.\d{1,3}|\[::1\]|0\.0\.0\.0|host\.docker\.internal)(?![\w.-])`;

/**
 * A variable that holds a secret, by its name (`$AWS_SECRET_ACCESS_KEY`, `${GH_TOKEN}`, `$env:API_KEY`,
 * `%DB_PASSWORD%`, `process.env.NPM_TOKEN`, `os.environ["X_SECRET"]`). Group 1 is the name.
 */
export const SECRET_VAR = String.raw`(?:\$\{?|\$env:|%|process\.env\.|os\.environ\[['"]|os\.getenv\(['"]|ENV\[['"])([A-Za-z][A-Za-z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASS|CREDENTIALS?|COOKIE)[A-Za-z0-9_]*)\b`;

/** A file that holds credentials: ssh keys, cloud and registry credentials, `.netrc`, `.env` (a public key is none). */
export const SECRET_FILE = String.raw`(?:(?:~|\$HOME|\$\{HOME\}|%USERPROFILE%|\/root|\/home\/[\w.-]+)\/\.(?:ssh|aws|gnupg|kube|docker\/config\.json|netrc|git-credentials|npmrc|pypirc|config\/gcloud|config\/gh|azure|password-store)(?![\w-])|\bid_(?:rsa|ed25519|ecdsa|dsa)\b(?!\.pub)|\.netrc\b|\.(?:bash|zsh|sh)_history\b|\.git-credentials\b|\.aws\/credentials\b|\.config\/gcloud\b|\bcredentials\.db\b|\/etc\/shadow\b|(?<![\w.-])\.env(?:\.local|\.production|\.prod)?(?![\w.-]))`;

/**
 * The whole environment dumped (`env`, `printenv`, `export -p`, `Get-ChildItem env:` with no name after it), or
 * the shell history (`history |`), which holds every secret typed on a command line.
 */
export const WHOLE_ENV = String.raw`(?:(?<![\w-])(?:printenv|env|export\s+-p|declare\s+-x|set|history)\s*(?=[|>])|\b(?:Get-ChildItem|gci|ls|dir)\s+env:)`;

/** A secret of any form: a variable, a credential file, the whole environment. */
export const SECRET = `(?:${SECRET_VAR}|${SECRET_FILE}|${WHOLE_ENV})`;

/** A directory a web server or a dashboard serves, where a file is readable by anyone. */
export const SERVED = String.raw`(?:public|static|www|wwwroot|html|htdocs|_site|site|dist|uploads?|assets|shared|artifacts?)\/`;

/**
 * Whether a secret variable's owner is the host it goes to (`$GITHUB_TOKEN` to api.github.com, `$GOOGLE_API_KEY`
 * to maps.googleapis.com): that is how those keys are used. By the name's first word, a few short aliases spelled out.
 */
export function secretOwnsHost(varName: string, host: string): boolean {
  const alias: Record<string, string[]> = { gh: ['github'], aws: ['amazonaws'], gcp: ['googleapis'], gcloud: ['googleapis'], hf: ['huggingface'], npm: ['npmjs'], cr: ['ghcr'] };
  const first = varName.toLowerCase().split('_')[0] ?? '';
  if (first.length < 2) return false;
  const h = host.toLowerCase();
  return [first, ...(alias[first] ?? [])].some((v) => h.includes(v));
}

/**
 * Where a command written in a lesson ends: a space, the end, or the closing quote, backtick, bracket or
 * punctuation of the sentence around it (trial 26: `` `… --directory ~` `` passed a rule that wanted a space).
 */
export const END = String.raw`(?=[\s\x60'")\].,;:!?]|$)`;

/** The model APIs' own hosts: a base URL set to one of them sends the key where it already goes. */
export const MODEL_HOME = String.raw`(?:(?:https?:\/\/)?(?:${LOOPBACK}|(?:api\.anthropic\.com|api\.openai\.com)(?![\w.-])))`;

/**
 * Hosts whose address decides where the model, code or packages come from: pinning one in /etc/hosts (or
 * `--add-host`) sends every request for it elsewhere.
 */
export const PINNED_HOSTS = String.raw`(?:[\w-]+\.)*(?:anthropic\.com|claude\.ai|openai\.com|googleapis\.com|mistral\.ai|groq\.com|openrouter\.ai|cohere\.(?:ai|com)|github\.com|githubusercontent\.com|gitlab\.com|bitbucket\.org|pypi\.org|pythonhosted\.org|npmjs\.(?:org|com)|yarnpkg\.com|crates\.io|rubygems\.org|golang\.org|docker\.io)(?![\w.-])`;

/** The ecosystems' own package indexes (and GitHub's, for a scope): pointing a package manager at one of them changes nothing. */
export const PACKAGE_HOME = String.raw`(?:https?:\/\/)?(?:pypi\.org|files\.pythonhosted\.org|registry\.npmjs\.org|registry\.yarnpkg\.com|npm\.pkg\.github\.com|rubygems\.org|index\.crates\.io|crates\.io|proxy\.golang\.org|${LOOPBACK})(?![\w.-])`;

/** A tool that opens a connection and moves bytes over it, whatever runs on either end. */
export const SOCKET_TOOLS = String.raw`(?:nc|ncat|netcat|nc\.traditional|nc\.openbsd|socat|telnet|openssl\s+s_client)`;
