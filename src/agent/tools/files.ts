import { posix } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Sandbox } from '../../sandbox/types.js';
import { SandboxError } from '../../sandbox/errors.js';
import { ToolError } from '@anthropic-ai/sdk/lib/tools/ToolError';

/** Reads a UTF-8 text file of at most `maxBytes` from the sandbox; errors become tool errors. */
export async function readText(sandbox: Sandbox, real: string, shownAs: string, maxBytes: number): Promise<string> {
  try {
    const buf = await sandbox.readFile(real, { maxBytes });
    if (buf.includes(0)) throw new ToolError(`${shownAs} looks binary (it contains NUL bytes); use bash to inspect it`);
    const text = buf.toString('utf8');
    // An edit writes text back as UTF-8; a file in another encoding would be silently corrupted.
    if (!Buffer.from(text, 'utf8').equals(buf)) {
      throw new ToolError(`${shownAs} is not valid UTF-8; the editor only handles UTF-8 text — use bash (iconv, sed) for it`);
    }
    return text;
  } catch (err) {
    if (err instanceof SandboxError) {
      if (err.code === 'TOO_LARGE') {
        throw new ToolError(`${shownAs} is larger than ${maxBytes} bytes; use bash (head, sed -n, grep) to read parts of it`);
      }
      if (err.code === 'ENOENT') throw new ToolError(`The path ${shownAs} does not exist`);
      if (err.code === 'EISDIR') throw new ToolError(`The path ${shownAs} is a directory`);
      throw new ToolError(`Could not read ${shownAs}: ${err.message}`);
    }
    throw err;
  }
}

// One exec: parents made, the text streamed into a temp file beside the target, then renamed over it.
const WRITE_SCRIPT = 'mkdir -p -- "$(dirname -- "$2")" && cat > "$1" && mv -fT -- "$1" "$2" || { s=$?; rm -f -- "$1"; exit $s; }';

/**
 * Writes `text` to `real` atomically: a temp file beside it, then a rename (`mv -fT`), so a reader sees the
 * whole old or the whole new file, never half. Parents are created. One sandbox round trip; the file is
 * owned by the sandbox user, like everything the agent's commands write.
 * @throws ToolError when the text is over `maxBytes` or the sandbox refuses.
 */
export async function writeTextAtomic(sandbox: Sandbox, real: string, shownAs: string, text: string, maxBytes: number): Promise<void> {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > maxBytes) {
    throw new ToolError(`Refused: ${shownAs} would be ${bytes} bytes, over the ${maxBytes}-byte limit per file`);
  }
  const tmp = posix.join(posix.dirname(real), `.mnemara-tmp-${randomBytes(6).toString('hex')}`);
  const r = await sandbox.exec(['bash', '-c', WRITE_SCRIPT, 'write', tmp, real], { stdin: text, timeoutMs: 60_000 });
  if (r.exitCode !== 0) {
    throw new ToolError(`Could not write ${shownAs}: ${r.stderr.trim() || `exit ${r.exitCode}`}`);
  }
}

/** One entry of a directory listing: type (`f`, `d`, `l` …), size in bytes, path relative to the listed dir. */
export interface ListEntry {
  type: string;
  size: number;
  rel: string;
}

/** Lists `dir` up to `depth` levels, hidden entries and node_modules left out (GNU find in the sandbox). */
export async function listDir(sandbox: Sandbox, dir: string, depth = 2): Promise<ListEntry[]> {
  const r = await sandbox.exec(
    ['find', dir, '-mindepth', '1', '-maxdepth', String(depth), '(', '-name', '.*', '-o', '-name', 'node_modules', ')', '-prune', '-o', '-printf', '%y %s %P\\n'],
    { timeoutMs: 30_000 },
  );
  if (r.exitCode !== 0 && r.stdout === '') throw new ToolError(`Could not list ${dir}: ${r.stderr.trim()}`);
  return r.stdout
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => {
      const [type = '?', size = '0', ...rest] = l.split(' ');
      return { type, size: Number(size), rel: rest.join(' ') };
    })
    .filter((e) => e.rel !== '')
    .sort((a, b) => a.rel.localeCompare(b.rel));
}

/** `cat -n`-style numbering (6-wide number, tab), starting at `first` (1-based). */
export function numberLines(lines: string[], first: number): string {
  return lines.map((l, i) => `${String(i + first).padStart(6, ' ')}\t${l}`).join('\n');
}
