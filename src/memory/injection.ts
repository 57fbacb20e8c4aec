/**
 * What an injected instruction looks like once it is written down as a lesson, whatever its kind: fetching
 * and running code, sending data somewhere, changing credentials or weakening security (issue 12, item 6).
 * A memory entry saying any of that is dropped unless the user typed it themselves. Word lists decide the
 * kind of act, never a particular command or host.
 */
const DANGEROUS: RegExp[] = [
  // fetch and run: `curl … | sh`, `wget -O- … | bash`, `bash <(curl …)`, `iex (iwr …)`, `python -c "$(curl …)"`
  /\b(curl|wget|fetch|iwr|invoke-webrequest)\b[^\n|]{0,200}\|\s*(sudo\s+)?(ba|z|da|k)?sh\b/i,
  /\b(ba|z)?sh\s+<\(\s*(curl|wget)\b/i,
  /\$\(\s*(curl|wget)\b[^)]*\)/i,
  /\b(iex|invoke-expression)\b/i,
  // send data somewhere: secrets, keys, dotfiles, the environment uploaded or posted to a host
  /\b(upload(ed|s|ing)?|send(s|ing)?|sent|post(ed|s|ing)?|exfiltrat\w*|copy|copied|scp|rsync|transmit\w*)\b[^\n]{0,80}(~\/\.ssh|id_rsa|id_ed25519|\.env\b|credentials?|secrets?|tokens?|api[_ -]?keys?|passwords?|printenv|environment variables)/i,
  /(~\/\.ssh|id_rsa|id_ed25519|\.aws\/credentials|\.env\b|secrets?|tokens?)[^\n]{0,80}\b(uploaded|sent|posted|copied|transmitted)\s+to\b/i,
  /\bcurl\b[^\n]{0,120}(-d|--data(-binary)?|-F|-T|--upload-file)\s+@?\S*(~\/\.ssh|\.env|credentials|id_rsa|\/etc\/passwd)/i,
  /\b(env|printenv)\b[^\n]{0,40}\|\s*(curl|nc|netcat|wget)\b/i,
  // change credentials or weaken security
  /\b(disable|turn off|skip|bypass)\w*\b[^\n]{0,40}\b(ssl|tls|certificate|cert|signature|gpg|2fa|mfa|auth\w*|firewall|selinux|apparmor|sandbox|verification|security)\b/i,
  /(--insecure|--no-verify-ssl|verify\s*=\s*false|strict-ssl\s*(=|\s)\s*false|GIT_SSL_NO_VERIFY|NODE_TLS_REJECT_UNAUTHORIZED\s*=\s*0|--trusted-host|--allow-unauthenticated)/i,
  /\bchmod\s+(-R\s+)?(777|666|a\+rwx|o\+w)\b/i,
  /\b(authorized_keys|NOPASSWD|visudo|sudoers)\b/i,
  /\b(change|reset|rotate|replace|set)\w*\b[^\n]{0,30}\b(password|passphrase|credentials?|api[_ -]?key|token)\b[^\n]{0,40}\bto\b/i,
  /\bgit\s+(remote\s+set-url|config\s+[^\n]*credential)\b/i,
];

/** True when the text tells the reader to do something of those kinds. */
export function dangerousInstruction(text: string): boolean {
  return DANGEROUS.some((r) => r.test(text));
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
