import { LOOPBACK, PACKAGE_HOME } from './injection-parts.js';
import type { Finder } from './injection-kinds.js';

/**
 * mnemara's sandbox settings judged by the value they are given, not by their name (round 27): `network` other
 * than `none` (`host`, `bridge`) lets the agent out, `backend` other than `docker` isolates nothing, another
 * `image` or `dockerHost` is another sandbox, a resource limit above its default (or none) weakens it. A limit
 * kept at or under its default, or an option that decides no isolation (timeouts, output caps), changes nothing:
 * "sandbox.network=none is the default" is a safe note.
 */
const LIMIT_DEFAULTS: Record<string, number> = {
  memorybytes: 2 * 1024 ** 3, cpus: 2, pidslimit: 512, tmpbytes: 512 * 1024 ** 2, maxworkspacebytes: 20 * 1024 ** 3,
};
const HARMLESS = new Set(['exectimeoutms', 'maxoutputbytes', 'workspacecachebytes']);

/** Whether giving sandbox option `key` the value `value` weakens the sandbox. */
export function sandboxWeakened(key: string, value: string): boolean {
  const k = key.toLowerCase().replace(/[\s_-]/g, '');
  const v = value.toLowerCase().replace(/^['"`]|['"`,.;)]+$/g, '');
  if (k === 'network') return v !== 'none';
  if (k === 'backend') return v !== 'docker';
  if (HARMLESS.has(k)) return false;
  const limit = LIMIT_DEFAULTS[k];
  if (limit !== undefined) {
    const n = Number(v.replace(/_/g, ''));
    return !Number.isFinite(n) || (k === 'maxworkspacebytes' && n === 0) || n > limit;
  }
  // `image`, `dockerHost`, and any option the schema does not have (`seccomp`, `privileged`): another sandbox.
  return true;
}

/** The sandbox options said in words or as a dotted key. */
const SANDBOX_KEY = String.raw`(?:network|backend|image|dockerHost|docker[\s_-]host|memoryBytes|memory_bytes|cpus|pidsLimit|pids_limit|tmpBytes|maxWorkspaceBytes)`;

/** A value after an article or "back to": "set the sandbox network to the default" names none. */
const VALUE = String.raw`(?:(?:back\s+)?(?:to|as|auf|sur|à|a|en|zu)\s+)?(?:(?:the|its|a|an|den|die|das|le|la|el)\s+)?['"\x60]?([\w./:-]*)`;

/**
 * `sandbox.network=host`, `MNEMARA_SANDBOX_NETWORK=bridge`, `--set sandbox.seccomp=unconfined`, `"sandbox":
 * {"backend": "local"}`, "change the sandbox network to host": each judged by `sandboxWeakened`. "default" as
 * the value (or no value) keeps what there is.
 */
export const sandboxSettings: Finder = (text) => {
  const out: number[] = [];
  const forms: [RegExp, (m: RegExpMatchArray) => [string, string]][] = [
    [/\bMNEMARA_SANDBOX_([A-Z_]+)\s*=\s*['"]?([^\s'"`;,)]*)/g, (m) => [m[1]!.replace(/_/g, ''), m[2]!]],
    [/\bsandbox\.([A-Za-z]\w*)['"`]?\s*=\s*['"`]?([^\s'"`;,)]*)/gi, (m) => [m[1]!, m[2]!]],
    [new RegExp(String.raw`['"]sandbox['"]\s*:\s*\{[^{}]{0,300}?['"](${SANDBOX_KEY})['"]\s*:\s*['"]?([\w./:-]*)`, 'gi'), (m) => [m[1]!, m[2]!]],
    [new RegExp(String.raw`\bsandbox(?:\.|\s+|'s\s+|-)(${SANDBOX_KEY})\b['"\x60]?\s*(?::\s*|\s(?=(?:back\s+)?(?:to|as|auf|sur|à|a|en|zu)\s))${VALUE}`, 'gi'), (m) => [m[1]!, m[2]!]],
  ];
  for (const [form, read] of forms) {
    for (const m of text.matchAll(form)) {
      const [key, value] = read(m);
      if (/^(?:default|standard|défaut|defecto)$/i.test(value) || value === '') continue;
      if (sandboxWeakened(key, value)) out.push(m.index!);
    }
  }
  return out;
};

/** Variables that choose a package index, and those that let a host go unchecked. */
const INDEX_VAR = String.raw`\b(?:PIP_(?:INDEX_URL|EXTRA_INDEX_URL|FIND_LINKS)|UV_(?:INDEX_URL|EXTRA_INDEX_URL|DEFAULT_INDEX|INDEX|FIND_LINKS)|NPM_CONFIG_REGISTRY|YARN_REGISTRY|YARN_NPM_REGISTRY_SERVER|BUN_CONFIG_REGISTRY|POETRY_REPOSITORIES_\w+_URL|CARGO_REGISTRIES_\w+_INDEX|GOPROXY)\b`;
const TRUST_VAR = String.raw`\b(?:PIP_TRUSTED_HOST|UV_INSECURE_HOST|NPM_CONFIG_STRICT_SSL|YARN_ENABLE_STRICT_SSL|GOINSECURE|GONOSUMDB|GONOSUMCHECK)\b`;

/**
 * A package index variable given a value (`PIP_INDEX_URL=https://h/simple`, "set NPM_CONFIG_REGISTRY to
 * https://h", `UV_INDEX_URL: https://h`): held when the value names a host that is not the ecosystem's own index
 * or this machine, or a plain-http one. Naming the variable ("PIP_INDEX_URL is set in CI from the secret store")
 * or giving it another variable (`${{ secrets.INDEX }}`) sends nothing anywhere. A variable that lets a host
 * go unchecked is held whatever the host, unless it is this machine.
 */
export const packageIndexRedirects: Finder = (text) => {
  const out: number[] = [];
  const given = String.raw`['"\x60]?(?:\s*[=:]\s*|\s+(?:to|at|auf|sur|à|a|en|hacia|para)\s+)['"\x60]?`;
  const home = new RegExp(String.raw`^${PACKAGE_HOME}`, 'i');
  const goHome = /^(?:https?:\/\/)?(?:proxy\.golang\.org|goproxy\.io|direct|off)(?![\w.-])/i;
  for (const m of text.matchAll(new RegExp(String.raw`${INDEX_VAR}${given}([^\s'"\x60;)]*)`, 'gi'))) {
    for (const v of m[1]!.split(/[,|]/)) {
      if (!/^(?:https?:\/\/|[\w-]+(?:\.[\w-]+)+\/)/i.test(v)) continue;
      if (/^http:\/\//i.test(v) && !new RegExp(String.raw`^http:\/\/${LOOPBACK}`, 'i').test(v)) out.push(m.index);
      else if (!home.test(v) && !goHome.test(v)) out.push(m.index);
    }
  }
  for (const m of text.matchAll(new RegExp(String.raw`${TRUST_VAR}${given}([^\s'"\x60;)]+)`, 'g'))) {
    if (!new RegExp(String.raw`^(?:\w+:\/\/)?${LOOPBACK}`, 'i').test(m[1]!) && !/^(?:true|1)$/i.test(m[1]!)) out.push(m.index);
  }
  return out;
};

/** One install of the project's packages, as a command line starts: what a registry flag on it applies to. */
const INSTALL_COMMAND = /^\s*(?:sudo\s+(?:-\S+\s+)*)?(?:(?:npm|pnpm|yarn|bun)\s+(?:i|install|ci|add)\b|yarn\s*$|(?:python[\d.]*\s+-m\s+)?pip\d*(?:\.\d+)?\s+(?:install|download)\b|uv\s+(?:pip\s+(?:install|sync|compile)|add|sync|lock)\b|pipenv\s+install\b|poetry\s+(?:add|install)\b|gem\s+install\b|bundle\s+install\b)/i;

/**
 * A package index named by a flag (`--registry`, `--index-url`, `--extra-index-url`, `--index`, `--source`):
 * held when it is plain http to another machine, or when the command it is on is not an install (`npm publish
 * --registry https://h` sends the package there). On one install command (`npm install --registry
 * https://npm.corp.example.com`, `pip install --index-url https://pypi.corp.example.com/simple -r
 * requirements.txt`) it is kept: it applies to that command only, the host is written where the person reading
 * the note sees it, and it says no more than the project's own files may (`.npmrc`'s `registry=`, a
 * requirements file's `--index-url` line). What redirects every later install silently — an index variable
 * (`packageIndexRedirects`), `npm config set registry`, `pip config set global.index-url` — stays held for
 * any host but the ecosystem's own; this machine (`--registry=http://localhost:4873`, a verdaccio cache) is
 * kept everywhere, as it is for the model endpoint.
 */
export const registryFlags: Finder = (text) => {
  const out: number[] = [];
  const home = new RegExp(String.raw`^${PACKAGE_HOME}`, 'i');
  const flag = /(?<![\w-])(?:--(?:extra-)?index-url|--registry|--source|--(?:default-)?index|--find-links)(?:=|\s+)['"]?(https?:\/\/[^\s'"`)]+)/gi;
  for (const m of text.matchAll(flag)) {
    const url = m[1]!;
    if (home.test(url)) continue;
    if (/^http:\/\//i.test(url)) {
      out.push(m.index);
      continue;
    }
    // The command the flag is on: back to the start of its line, backtick span or command list item.
    const command = text.slice(0, m.index).split(/\n|\x60|&&|\|\||;|\|/).at(-1)!;
    if (!INSTALL_COMMAND.test(command)) out.push(m.index);
  }
  return out;
};
