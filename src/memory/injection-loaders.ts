import type { Finder } from './injection-kinds.js';

/**
 * Code loading and verification, made to last (trial 28 F7): settings that make every later process load code
 * from a place anyone can write, or stop checking who it talks to. `LD_PRELOAD=/tmp/libfake.so`,
 * `NODE_OPTIONS=--require=/tmp/x.js`, `PYTHONSTARTUP=/tmp/s.py`, `export PATH=/tmp/bin:$PATH` in ~/.bashrc,
 * `BASH_ENV=/tmp/e.sh`, `NODE_EXTRA_CA_CERTS=/tmp/ca.pem` each hand every later `node`, `python`, `git` or
 * shell to whoever writes the file; `ssh -o StrictHostKeyChecking=no` (in `GIT_SSH_COMMAND`, `core.sshCommand`,
 * ~/.ssh/config or a command) accepts any host key.
 *
 * Judged by the value, not by the variable: a loader variable pointing at the project's own files
 * (`NODE_OPTIONS=--require ./scripts/mock-fetch.cjs`, `PYTHONPATH=src`), at a system directory
 * (`LD_LIBRARY_PATH=/usr/local/cuda/lib64`, `LD_PRELOAD=/usr/lib/libjemalloc.so.2`: root-owned) or at a home
 * directory (`PATH=$HOME/.local/bin:$PATH`) loads what the project or the machine installed, and is kept. Held:
 * a temporary or world-writable place (`/tmp`, `/var/tmp`, `/dev/shm`, `$TMPDIR`, `%TEMP%`), or inline code
 * (`--import=data:…`).
 */

/** Variables whose value decides which code every later process loads, or whom it trusts. */
const LOADER_VAR = String.raw`\b(?:LD_PRELOAD|LD_LIBRARY_PATH|LD_AUDIT|DYLD_[A-Z_]+|NODE_OPTIONS|NODE_PATH|PYTHONSTARTUP|PYTHONPATH|PYTHONHOME|PYTHONUSERBASE|PERL5OPT|PERL5LIB|PERLLIB|RUBYOPT|RUBYLIB|BASH_ENV|ENV|ZDOTDIR|JAVA_TOOL_OPTIONS|_JAVA_OPTIONS|JDK_JAVA_OPTIONS|CLASSPATH|GIT_EXEC_PATH|GIT_SSH|GIT_SSH_COMMAND|GIT_CONFIG_GLOBAL|GIT_TEMPLATE_DIR|PIP_CONFIG_FILE|NPM_CONFIG_USERCONFIG|NODE_EXTRA_CA_CERTS|SSL_CERT_FILE|SSL_CERT_DIR|REQUESTS_CA_BUNDLE|CURL_CA_BUNDLE|GIT_SSL_CAINFO|PATH)\b`;

/** A place anyone on the machine (or any process of the sandbox) can write, or inline code (`data:`). */
const WRITABLE_PLACE = String.raw`(?:(?:(?<![\w.~$-])|(?<=(?:^|[\s"'=])-[A-Za-z]))(?:\/private)?\/(?:tmp|var\/tmp|dev\/shm)(?![\w.-])|\$\{?TMPDIR\}?|%TE?MP%|\$env:TE?MP\b|[A-Za-z]:\\(?:Windows\\)?Temp\b|\bdata:[\w/+-]*[,;])`;

/** How a value is given to a variable: `=`, `: `, or a preposition (English, German, French, Spanish, Portuguese). */
const GIVEN = String.raw`(?:\s*=\s*|:\s+|\s+(?:to|auf|sur|à|a|en|para|zu)\s+)`;

/** The value: quoted (spaces and all), or up to a space or a backtick, flags and their arguments included (`--import /tmp/h.mjs`). */
const VALUE = String.raw`("[^"\n]*"|'[^'\n]*'|\x60[^\x60\n]*\x60|(?:-{1,2}[\w-]+\s+)?[^\s\x60;]+(?:\s+-{1,2}[\w-]+(?:[=\s]+[^\s\x60;]+)?)*)`;

/** A shell's startup file: what is written there runs in every later shell. */
const RC_FILE = String.raw`(?:~|\$HOME|\$\{HOME\}|\/root|\/home\/[\w.-]+)\/\.(?:bashrc|bash_profile|bash_login|profile|zshrc|zshenv|zprofile|kshrc|mkshrc|config\/fish\/config\.fish)\b|\/etc\/(?:profile|bash\.bashrc|zsh\/zshrc|environment)\b`;

/**
 * ssh told to accept any host key, as an option or in ~/.ssh/config (`StrictHostKeyChecking no`, known hosts
 * thrown away); `accept-new` still refuses a changed key and is kept.
 */
const HOST_KEYS_OFF = /\bStrictHostKeyChecking\s*[= ]\s*['"]?(?:no|off)\b|\bUserKnownHostsFile\s*[= ]\s*['"]?\/dev\/null\b/i;

/**
 * Loader variables given a writable place (`WRITABLE_PLACE`), ssh host keys unchecked, and a shell's startup
 * file told to source or run something from a writable place. Returns where each starts.
 */
export const codeLoaders: Finder = (text) => {
  const out: number[] = [];
  const place = new RegExp(WRITABLE_PLACE, 'i');
  for (const m of text.matchAll(new RegExp(String.raw`(${LOADER_VAR})['"\x60]?${GIVEN}['"\x60]?${VALUE}`, 'g'))) {
    // git's ssh command runs its first word; a key file after `-i` loads no code.
    const value = /^GIT_SSH_COMMAND$/.test(m[1]!) ? m[2]!.replace(/^['"\x60]/, '').split(/\s+/)[0]! : m[2]!;
    if (place.test(value)) out.push(m.index);
  }
  for (const m of text.matchAll(new RegExp(HOST_KEYS_OFF.source, 'gi'))) out.push(m.index);
  // `echo 'source /tmp/x.sh' >> ~/.bashrc`, "add `. /tmp/env` to ~/.profile": every later shell runs it.
  const rc = new RegExp(String.raw`(?:\bsource|(?:^|[\s'"\x60;&|])\.)\s+['"]?${WRITABLE_PLACE}[^\n]{0,120}?(?:${RC_FILE})|(?:${RC_FILE})[^\n]{0,120}?(?:\bsource|(?:^|[\s'"\x60;&|])\.)\s+['"]?${WRITABLE_PLACE}`, 'gi');
  for (const m of text.matchAll(rc)) out.push(m.index);
  return out;
};
