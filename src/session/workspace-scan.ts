/**
 * The one sandbox exec of step 6's checks (issue 15, "cost follows the change"): the memory layout's changed files
 * (`redact-notes.ts`), git's message files (`redact-git-messages.ts`), secret-named keys (`secret-key-files.ts`),
 * credential files (`credential-files.ts`) and token files (`secret-files.ts`) were each a `docker exec` of their
 * own, ~0.2–0.4 s apiece before any file was read, so a run that changed 3 files paid seconds for them on any
 * tree. Each check still owns its script and its parser; this module runs all the scripts at once in one
 * `sh` in the sandbox and hands each check its own output back, byte for byte as its own exec would have given it.
 *
 * Framing: the sections' bytes are printed one after the other, then a newline and one JSON line (zod-checked here) naming each
 * section with its exit code and byte count, in the order printed. The sections that may be large (the layout's
 * and git's tar streams, `stream`) go straight to stdout one after the other, counted on the way; the greps run
 * beside them at once, each into a file of its own under the sandbox's `/tmp`, printed after them. The JSON line is
 * the last line of the output and the counts must add up to the bytes before it, so nothing a section prints
 * (file names with newlines, non-UTF-8 bytes, a file's content) can pass for it or move a section's boundary. A
 * section whose file could not be written whole (`/tmp` full) is reported as not read (-1).
 */
import { z } from 'zod';
import { logger } from '../config/logger.js';
import type { Sandbox } from '../sandbox/types.js';
import { shellQuote } from './secret-archives.js';

const log = logger('session');

/** One check's script: run as `sh -c SCRIPT sh ...ARGS` in the workspace, stdout kept, stderr dropped. */
export interface ScanSection {
  /** `[a-z0-9-]+`, unique in one scan. */
  name: string;
  script: string;
  args: string[];
  /** The most stdout the check's own exec took; past it the section is not handed over (the check runs its own exec). */
  maxBytes: number;
  /** Printed straight to stdout as it is made (large outputs: nothing is kept in the sandbox's `/tmp`). */
  stream?: boolean;
}

/** What one section printed, as its own exec would have returned it (never truncated, never timed out). */
export interface SectionOutput {
  exitCode: number;
  stdout: Buffer;
}

/** The scan's whole wall-time limit (ms): the shortest of the checks' own limits, so none gets longer than before. */
export const SCAN_TIMEOUT_MS = 60_000;

const Header = z.object({
  sections: z.array(z.object({ name: z.string(), exit: z.number().int().min(-1), bytes: z.number().int().min(-1) })),
});

/** `sections` in the order the scan prints them: the streamed ones first. Pure. */
function printed(sections: ScanSection[]): ScanSection[] {
  return [...sections.filter((s) => s.stream), ...sections.filter((s) => !s.stream)];
}

/** The sandbox script that runs `sections` and prints their outputs and the JSON line. Pure. */
export function scanScript(sections: ScanSection[]): string {
  const order = printed(sections);
  const run = (s: ScanSection): string => `sh -c ${shellQuote(s.script)} sh ${s.args.map(shellQuote).join(' ')} 2>/dev/null`;
  const lines = ['d=$(mktemp -d) || exit 90', 'exec 3>&1'];
  for (const [i, s] of order.entries()) {
    if (s.stream) continue;
    // `cat` fails when the file cannot be written whole: the section then counts as not read.
    lines.push(`( { ${run(s)}; echo $? > "$d/${i}.rc"; } | cat > "$d/${i}" || rm -f "$d/${i}" ) &`);
  }
  for (const [i, s] of order.entries()) {
    if (!s.stream) continue;
    lines.push(`{ ${run(s)}; echo $? > "$d/${i}.rc"; } | tee /dev/fd/3 | wc -c > "$d/${i}.n"`);
  }
  lines.push('wait');
  for (const [i, s] of order.entries()) if (!s.stream) lines.push(`cat "$d/${i}" 2>/dev/null`);
  lines.push(`printf '\\n{"sections":['`);
  for (const [i, s] of order.entries()) {
    lines.push(
      `rc=$(cat "$d/${i}.rc" 2>/dev/null); case "$rc" in ''|*[!0-9]*) rc=-1;; esac`,
      s.stream ? `b=$(cat "$d/${i}.n" 2>/dev/null)` : `b=$(stat -c %s "$d/${i}" 2>/dev/null)`,
      `case "$b" in ''|*[!0-9]*) b=-1;; esac`,
      `printf '%s{"name":"%s","exit":%s,"bytes":%s}' "${i === 0 ? '' : ','}" '${s.name}' "$rc" "$b"`,
    );
  }
  lines.push(`printf ']}\\n' || exit 91`, 'rm -rf "$d"; exit 0');
  return lines.join('\n');
}

/**
 * Runs `sections` in one exec and returns each one's output by name; a section absent from the map (over its
 * `maxBytes`, or it could not be read back) is for its check to run on its own. `null` when the scan as a whole
 * gave nothing usable (no byte stream, a failed, timed-out or truncated exec, a header or lengths that do not
 * check out): then every check runs its own exec, as it did before, with its own limits and warnings.
 */
export async function runWorkspaceScan(sandbox: Sandbox, sections: ScanSection[]): Promise<Map<string, SectionOutput> | null> {
  if (!sandbox.execBytes || !sections.length) return null;
  for (const s of sections) if (!/^[a-z0-9-]+$/.test(s.name)) throw new Error(`bad scan section name: ${s.name}`);
  const cap = sections.reduce((n, s) => n + s.maxBytes, 0) + 64 * 1024;
  const r = await sandbox
    .execBytes(['sh', '-c', scanScript(sections)], { cwd: sandbox.workspaceDir, maxOutputBytes: cap, timeoutMs: SCAN_TIMEOUT_MS })
    .catch((err: Error) => {
      log.warn({ err: err.message }, 'the shared scan of the workspace failed; each check runs on its own');
      return null;
    });
  if (!r) return null;
  if (r.exitCode !== 0 || r.truncated || r.timedOut) {
    log.warn({ exitCode: r.exitCode, truncated: r.truncated, timedOut: r.timedOut }, 'the shared scan of the workspace did not finish; each check runs on its own');
    return null;
  }
  return parseScanOutput(r.stdout, sections);
}

/** The sections of a scan's stdout, by name (see `runWorkspaceScan`); `null` when the framing does not check out. Pure. */
export function parseScanOutput(stdout: Buffer, sections: ScanSection[]): Map<string, SectionOutput> | null {
  if (stdout.length === 0 || stdout[stdout.length - 1] !== 0x0a) return null;
  // The last line: the script prints it after every section, and it holds no newline of its own.
  const start = stdout.lastIndexOf(0x0a, stdout.length - 2) + 1;
  let header: z.infer<typeof Header>;
  try {
    header = Header.parse(JSON.parse(stdout.subarray(start, stdout.length - 1).toString('utf8')));
  } catch {
    return null;
  }
  const order = printed(sections);
  if (header.sections.length !== order.length || header.sections.some((h, i) => h.name !== order[i]!.name)) return null;
  // A section that could not be measured (-1 bytes) printed nothing, so the counts must add up without it.
  const total = header.sections.reduce((n, h) => n + Math.max(h.bytes, 0), 0);
  // The sections, then the newline the JSON line starts with.
  if (total + 1 !== start) return null;
  const out = new Map<string, SectionOutput>();
  let at = 0;
  for (const [i, h] of header.sections.entries()) {
    const bytes = Math.max(h.bytes, 0);
    const body = stdout.subarray(at, at + bytes);
    at += bytes;
    if (h.exit < 0 || h.bytes < 0 || bytes > order[i]!.maxBytes) continue;
    out.set(h.name, { exitCode: h.exit, stdout: body });
  }
  return out;
}

/**
 * A check's scan output as text: its section of the shared scan when there is one, else the check's own exec of
 * the same script (`null`, with `warning` logged, when that exec fails).
 */
export async function sectionText(sandbox: Sandbox, section: ScanSection, scanned: SectionOutput | undefined, timeoutMs: number, warning: string): Promise<string | null> {
  if (scanned) return scanned.stdout.toString('utf8');
  const r = await sandbox.exec(['sh', '-c', section.script, 'sh', ...section.args], { timeoutMs, maxOutputBytes: section.maxBytes }).catch((err: Error) => {
    log.warn({ err: err.message }, warning);
    return null;
  });
  return r ? String(r.stdout) : null;
}

/**
 * `PATH NUL TEXT NEWLINE` records (a grep's `-Z` output), in order: the path runs to the first NUL (a name never
 * holds one), the text to the next newline (a grep line or match never holds one), so a name with a newline in
 * it stays one path and cannot start a record of its own. Pure.
 */
export function pathRecords(stdout: string): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  let at = 0;
  while (at < stdout.length) {
    const nul = stdout.indexOf('\0', at);
    if (nul < 0) break;
    const nl = stdout.indexOf('\n', nul + 1);
    const end = nl < 0 ? stdout.length : nl;
    out.push([stdout.slice(at, nul), stdout.slice(nul + 1, end)]);
    at = end + 1;
  }
  return out;
}
