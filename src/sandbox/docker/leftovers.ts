import type Docker from 'dockerode';
import { logger } from '../../config/logger.js';
import type { Sandbox } from '../types.js';
import { reclaimProcessSlots } from './kill.js';

const log = logger('sandbox');

/**
 * Kills every process of the container but its own, and prints "stopped N". Bash builtins only: it must run when
 * a leftover fork bomb holds the process table, and a fork would need a slot. Spared: PID 1 (tini), this script,
 * and mnemara-reaper: the PID given as `$1` (the reaper's own first line in the container's log, see
 * `announcedReaper`) when that process is a child of PID 1 named mnemara-reaper; without one (a log driver that
 * keeps nothing), the earliest such child that started within 5 s of the container. The start time alone is not
 * enough: on a loaded machine the reaper starts several seconds after tini (7.8 s measured at load 36), and killing
 * it stops the container. Neither
 * ancestry, session nor environment is looked at: everything else goes, so `setsid`, `env -i`, `nohup` and
 * double forks (reparented to PID 1) go too. Every process is stopped first (`kill -STOP -1`) so
 * that nothing forks while the scan runs; rounds repeat until a scan finds none; then the survivors (the reaper)
 * are continued. Zombies are skipped (tini reaps them).
 */
// A plain template: `\${` is bash's, not an interpolation.
const SCRIPT = `
self=$BASHPID
start_of() {
  local line rest
  read -r line 2>/dev/null < "/proc/$1/stat" || return 1
  rest="\${line##*) }"
  local -a f=($rest)
  [ "\${f[0]}" = Z ] && return 1
  PPID_OF="\${f[1]}"
  REPLY="\${f[19]}"
}
start_of 1 && init=$REPLY || init=0
reaper="" best=""
for dir in /proc/[0-9]*; do
  pid="\${dir#/proc/}"
  [ "$pid" = "$self" ] && continue
  start_of "$pid" || continue
  [ "$PPID_OF" = 1 ] || continue
  read -r comm 2>/dev/null < "$dir/comm" || continue
  [ "$comm" = mnemara-reaper ] || continue
  if [ -z "$best" ] || [ "$REPLY" -lt "$best" ]; then best=$REPLY reaper=$pid; fi
done
[ -n "$best" ] && [ "$best" -gt $(( init + 500 )) ] && reaper=""
if [ -n "$1" ] && start_of "$1" && [ "$PPID_OF" = 1 ] && read -r comm 2>/dev/null < "/proc/$1/comm" && [ "$comm" = mnemara-reaper ]; then
  reaper=$1
fi
kill -STOP -1 2>/dev/null
declare -A seen=()
for (( round = 1; round <= 100; round++ )); do
  victims=()
  for dir in /proc/[0-9]*; do
    pid="\${dir#/proc/}"
    { [ "$pid" = "$self" ] || [ "$pid" = 1 ] || [ "$pid" = "$reaper" ]; } && continue
    start_of "$pid" || continue
    victims+=("$pid")
    seen[$pid]=1
  done
  [ "\${#victims[@]}" = 0 ] && break
  kill -KILL "\${victims[@]}" 2>/dev/null
done
kill -CONT -1 2>/dev/null
echo "stopped \${#seen[@]}"
`;

/**
 * Ends whatever the agent's commands left running in the container (issue 10): `cmd &`, `nohup`, `setsid`,
 * `env -i`, double forks, a background fork bomb. Called when no command of mnemara's runs, before the workspace
 * snapshot, so the tree it reads is stable and no late write lands in `memories/` after its redaction. Returns the
 * number of processes killed, or `null` when the kill could not run (logged). When the exec cannot start (a full
 * process table), mnemara-reaper is asked to reclaim the slots first (`reclaimProcessSlots`) and the exec is
 * tried once more. Never throws.
 */
export async function stopLeftoverProcesses(sandbox: Sandbox, container: Docker.Container): Promise<number | null> {
  const reaper = await announcedReaper(container);
  for (let attempt = 1; attempt <= 2; attempt++) {
    const r = await sandbox.exec(['bash', '-c', SCRIPT, 'leftovers', reaper], { timeoutMs: 30_000 }).catch((err: Error) => err);
    const n = r instanceof Error ? NaN : Number(/stopped (\d+)/.exec(r.stdout)?.[1]);
    if (Number.isFinite(n)) {
      if (n > 0) log.info({ processes: n }, "stopped the processes the agent's commands left running");
      return n;
    }
    log.debug({ attempt, err: r instanceof Error ? r.message : r.stderr.slice(0, 300) }, 'could not stop leftover processes');
    if (attempt === 1) await reclaimProcessSlots(container);
  }
  log.warn('could not stop the processes the agent left running; the workspace snapshot may see late writes');
  return null;
}

/**
 * The PID (in the container's namespace, as a decimal string) mnemara-reaper announced as its first line
 * ("mnemara-reaper pid=N") since the container last started, or `''` when the log has none or cannot be read.
 * The first line since the start, not the last: a process of the agent that writes to tini's stdout comes later.
 * Never throws.
 */
export async function announcedReaper(container: Docker.Container): Promise<string> {
  try {
    const started = Date.parse((await container.inspect()).State.StartedAt);
    const raw: unknown = await container.logs({ stdout: true, stderr: false, follow: false, timestamps: true, since: Math.floor(started / 1000) - 1 });
    // The frames' 8-byte headers are binary; the lines between them are ASCII.
    const text = Buffer.isBuffer(raw) ? raw.toString('latin1') : String(raw);
    for (const m of text.matchAll(/(\d{4}-\d\d-\d\dT[\d:.]+Z) mnemara-reaper pid=(\d+)/g)) {
      // A restarted container keeps the log of its earlier life: its reaper's line is older than this start.
      if (!(Date.parse(m[1]!) < started)) return m[2]!;
    }
  } catch (err) {
    log.debug({ err }, 'could not read which process is mnemara-reaper');
  }
  return '';
}
