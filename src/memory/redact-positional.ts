/**
 * Passwords given to a client as a positional argument, where no flag or name says "password": the argument's
 * place in the command does. `htpasswd -b FILE USER PW` (`-n`: no file), `mysqladmin … password NEW`,
 * `smbclient //srv/share PW`, `-U user%PW` (the Samba clients and `mount -t cifs`'s `user=`), `net use \\srv\share
 * PW /user:x`, `net user NAME PW`. Each command's words are read as the shell splits them (quotes kept), within
 * one command (up to a line break, `;`, `|`, `&`, `<` or `>`); only the password word, or the part after `%`, is
 * replaced. URL userinfo (`https://user:pw@`) and the flag forms (`-pPW`, `-w PW`) are redact.ts's and
 * redact-clients.ts's.
 */

import { tokenize } from './phase1/shell-words.js';

/** One word of a command: its text without quotes, where it starts and ends in the command, and its quote. */
interface Word {
  text: string;
  start: number;
  end: number;
  /** The quote to put around a replaced value: the word's own when it is one quoted string, else '' or one that fits. */
  quote: string;
  /** The unquoted start of a word quoted after it (`--user=` of `--user="a%b"`), kept outside the quotes. */
  lead: string;
}

/** What a command's handler picks: the word at `index`, from character `from` of its text on. */
interface Pick {
  index: number;
  from: number;
}

const COMMAND = /(htpasswd|mysqladmin|mariadb-admin|smbclient|rpcclient|smbget|smbmap|smbcacls|smbtree|net)(?=[ \t])([^\n;|&<>]*)/g;

/**
 * The command's words as the shell splits them (`tokenize`, backslashes kept as written: `net use \\srv\share`
 * is cmd.exe's). A word that is one quoted string, or a bare start and one quoted string (`-U'alice%pw'`), keeps
 * its quotes on replacement; a word quoted in more parts is put back whole in one pair of quotes.
 */
function splitWords(s: string): Word[] {
  const out: Word[] = [];
  for (const t of tokenize(s, { literalBackslashes: true })) {
    if (t.kind !== 'word') continue;
    const whole = /^([^"'\\]*)(["'])((?:[^"'\\]|\\[\s\S])*)\2$/.exec(t.raw);
    if (whole && whole[1]! + whole[3]! === t.value) {
      out.push({ text: t.value, start: t.start, end: t.end, quote: whole[2]!, lead: whole[1]! });
      continue;
    }
    const quote = !/["']/.test(t.raw) ? '' : t.value.includes("'") ? '"' : "'";
    out.push({ text: t.value, start: t.start, end: t.end, quote, lead: '' });
  }
  return out;
}

const isFlag = (w: string): boolean => /^-[A-Za-z-]/.test(w);

/** htpasswd [-flags] [-C cost] [-r rounds] [FILE] USER PASSWORD — a password word only with `-b`. */
function htpasswd(words: string[]): Pick[] {
  let flags = '';
  const positional: number[] = [];
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    if (isFlag(w)) {
      flags += w.slice(1);
      if (/[Cr]$/.test(w)) i++; // -C cost, -r rounds take the next word
    } else positional.push(i);
  }
  if (!flags.includes('b')) return [];
  const at = positional[flags.includes('n') ? 1 : 2];
  return at === undefined ? [] : [{ index: at, from: 0 }];
}

/** mysqladmin … password NEW / old-password NEW. */
function mysqladmin(words: string[]): Pick[] {
  const i = words.findIndex((w) => /^(?:old-)?password$/i.test(w));
  return i >= 0 && i + 1 < words.length && !isFlag(words[i + 1]!) ? [{ index: i + 1, from: 0 }] : [];
}

/** Samba clients: `-U user%PW`, `-Uuser%PW`, `--user=user%PW`, and `smbclient //srv/share PW`. */
function samba(words: string[]): Pick[] {
  const picks: Pick[] = [];
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    const glued = /^(?:-U|--user=|--username=)(.+)$/.exec(w);
    const value = glued ? glued[1]! : /^(?:-U|--user|--username)$/.test(w) ? words[i + 1] : undefined;
    if (value !== undefined && value.includes('%')) {
      const index = glued ? i : i + 1;
      picks.push({ index, from: words[index]!.indexOf('%') + 1 });
    }
  }
  const service = words.findIndex((w) => /^(?:\/\/|\\\\)[^/\\]/.test(w));
  const next = words[service + 1];
  if (service >= 0 && next !== undefined && !isFlag(next)) picks.push({ index: service + 1, from: 0 });
  return picks;
}

/** Windows `net use [X:] \\srv\share PW /user:x` and `net user NAME PW [/add]`. */
function net(words: string[]): Pick[] {
  const positional = words.map((w, i) => [w, i] as const).filter(([w]) => !w.startsWith('/'));
  const verb = positional[0]?.[0].toLowerCase();
  if (verb === 'use') {
    const share = positional.findIndex(([w]) => /^(?:\\\\|\/\/)[^\\/]/.test(w));
    const pw = share >= 0 ? positional[share + 1] : undefined;
    return pw ? [{ index: pw[1], from: 0 }] : [];
  }
  if (verb === 'user' && positional.length >= 3) return [{ index: positional[2]![1], from: 0 }];
  return [];
}

const HANDLERS: Record<string, (words: string[]) => Pick[]> = {
  htpasswd,
  mysqladmin,
  'mariadb-admin': mysqladmin,
  smbclient: samba,
  rpcclient: samba,
  smbget: samba,
  smbmap: samba,
  smbcacls: samba,
  smbtree: samba,
  net,
};

/**
 * Replaces each positional password in `text` with `marker`. `accept(value)` says whether a value is a secret
 * (not a reference like `$PW`, a prompt `*`, a marker or a development default); accepted values are passed to
 * `onRedact` (for the remembering redactor). Pure otherwise.
 */
export function redactPositional(text: string, marker: string, accept: (value: string) => boolean, onRedact: (value: string) => void): string {
  if (!/htpasswd|mysqladmin|mariadb-admin|smb|rpcclient|\bnet\b/.test(text)) return text;
  return text.replace(COMMAND, (m, command: string, rest: string, offset: number) => {
    // The command word starts a word (no leading lookbehind in COMMAND: V8 would try it at every position).
    if (offset > 0 && /[\w./\\-]/.test(text.charAt(offset - 1))) return m;
    // `net` is also an English word: only a command that starts a shell command counts.
    if (command === 'net' && !/(?:^|[\n;|&(]|[$#>] )[ \t]*$/.test(text.slice(Math.max(0, offset - 80), offset))) return m;
    const words = splitWords(rest);
    const picks = HANDLERS[command]!(words.map((w) => w.text)).sort((a, b) => b.index - a.index);
    let out = rest;
    for (const { index, from } of picks) {
      const w = words[index]!;
      const value = w.text.slice(from);
      if (!accept(value)) continue;
      onRedact(value);
      const lead = from >= w.lead.length ? w.lead : '';
      const replaced = `${lead}${w.quote}${w.text.slice(lead.length, from)}${marker}${w.quote}`;
      out = out.slice(0, w.start) + replaced + out.slice(w.end);
    }
    return command + out;
  });
}
