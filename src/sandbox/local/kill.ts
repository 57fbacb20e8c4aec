import { readdirSync, readFileSync } from 'node:fs';

/** One row of /proc/PID/stat that the tree search needs. */
interface ProcRow {
  pid: number;
  ppid: number;
  pgrp: number;
  session: number;
}

/**
 * Kills (SIGKILL) what a host command started, as far as a process on a shared host can tell: its process group
 * (`leader`), its session, every process whose environment carries `MNEMARA_EXEC_TOKEN=<token>`, and every
 * descendant of those (by parent pid). Each round stops (SIGSTOP) the matches before killing them, so a fork bomb
 * that stays in the tree cannot outrun it; rounds repeat until nothing is found (at most 100).
 *
 * What escapes, unlike in the Docker sandbox: a child that left the group and session, cleared its environment
 * *and* lost its parent (`setsid env -i …` double-forked onto PID 1). On a host, "started after the command"
 * would include the user's own programs, so start time cannot be the rule here. Without /proc (macOS) only the
 * process group is killed. Never throws.
 */
export function killHostTree(leader: number, token: string): void {
  for (let round = 0; round < 100; round++) {
    const victims = findTree(leader, token);
    if (victims === null) {
      signal(-leader, 'SIGKILL');
      return;
    }
    if (victims.length === 0) return;
    for (const pid of victims) signal(pid, 'SIGSTOP');
    for (const pid of victims) signal(pid, 'SIGKILL');
  }
}

/** The pids of the command's tree, or `null` when /proc cannot be read. */
function findTree(leader: number, token: string): number[] | null {
  let names: string[];
  try {
    names = readdirSync('/proc').filter((n) => /^\d+$/.test(n));
  } catch {
    return null;
  }
  const rows: ProcRow[] = [];
  const hit = new Set<number>();
  const tag = `MNEMARA_EXEC_TOKEN=${token}`;
  for (const name of names) {
    const row = statRow(Number(name));
    if (!row || row.pid === process.pid) continue;
    rows.push(row);
    if (row.pgrp === leader || row.session === leader || carries(row.pid, tag)) hit.add(row.pid);
  }
  // Descendants: repeat until no new child of a hit is found (parents may be listed after their children).
  for (let grew = true; grew; ) {
    grew = false;
    for (const row of rows) {
      if (!hit.has(row.pid) && hit.has(row.ppid)) {
        hit.add(row.pid);
        grew = true;
      }
    }
  }
  return [...hit];
}

function statRow(pid: number): ProcRow | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'latin1');
    // The command name may hold spaces and parentheses: fields start after the last ')'.
    const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
    if (f[0] === 'Z') return null;
    return { pid, ppid: Number(f[1]), pgrp: Number(f[2]), session: Number(f[3]) };
  } catch {
    return null;
  }
}

function carries(pid: number, tag: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(tag);
  } catch {
    return false;
  }
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // Gone already, or not ours.
  }
}
