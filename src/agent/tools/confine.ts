import { posix } from 'node:path';
import type { Sandbox } from '../../sandbox/types.js';
import { ToolError } from '@anthropic-ai/sdk/lib/tools/ToolError';

/**
 * A folder the model sees under a virtual name (`/workspace`, `/memories`) and that lives at `realRoot`
 * inside the sandbox (`/workspace/...` in Docker; a host temp dir for `LocalSandbox`).
 */
export interface VirtualRoot {
  virtual: string;
  realRoot: string;
}

/** Where a model path landed: the sandbox path (symlinks resolved), and what is there. */
export interface Confined {
  /** The path inside the sandbox, symlinks resolved, guaranteed inside the root. */
  real: string;
  /** The resolved root (for "is this the root itself" checks). */
  root: string;
  kind: 'file' | 'dir' | 'other' | 'none';
}

// Decodes %xx repeatedly so that `%252e%252e` is seen for what it becomes; stops at a fixed point.
function decodeFully(p: string): string {
  let cur = p;
  for (let i = 0; i < 4; i++) {
    let next: string;
    try {
      next = decodeURIComponent(cur);
    } catch {
      return cur;
    }
    if (next === cur) return cur;
    cur = next;
  }
  return cur;
}

/**
 * Maps a model path onto the sandbox, lexically: absolute paths must be the virtual root or under it,
 * relative ones are taken from the virtual root. Refuses NUL bytes, `..` that leaves the root, and
 * percent-encoded traversal (`%2e%2e/`), which no legitimate path needs.
 * @throws ToolError saying what was wrong (it becomes an `is_error` tool result).
 */
export function mapPath(root: VirtualRoot, modelPath: unknown): string {
  if (typeof modelPath !== 'string' || modelPath.trim() === '') {
    throw new ToolError(`A path is required and must be a non-empty string under ${root.virtual}`);
  }
  if (modelPath.includes('\0')) throw new ToolError(`The path ${JSON.stringify(modelPath)} contains a NUL byte`);
  const decoded = decodeFully(modelPath);
  if (decoded !== modelPath && decoded.split(/[\\/]/).includes('..')) {
    throw new ToolError(`The path ${modelPath} is refused: it hides ".." behind percent-encoding`);
  }
  const abs = posix.resolve(root.virtual, modelPath);
  if (abs !== root.virtual && !abs.startsWith(`${root.virtual}/`)) {
    throw new ToolError(`The path ${modelPath} is outside ${root.virtual}; only paths under ${root.virtual} can be used`);
  }
  return posix.join(root.realRoot, abs.slice(root.virtual.length));
}

const PROBE = [
  'set -u',
  'root=$(realpath -m -- "$1") || exit 3',
  't=$(realpath -m -- "$2") || exit 3',
  'printf "%s\\n%s\\n" "$root" "$t"',
  'if [ -d "$t" ]; then echo dir; elif [ -f "$t" ]; then echo file; elif [ -e "$t" ] || [ -L "$t" ]; then echo other; else echo none; fi',
].join('\n');

/**
 * {@link mapPath}, then resolves symlinks inside the sandbox (one `realpath -m` exec) and refuses a target
 * whose real path leaves the root, e.g. `memories/x -> /etc`. Returns the resolved path and its kind.
 * The check and the later file operation are two steps; the loop runs one tool call at a time, so nothing
 * in the run can swap a link in between.
 * @throws ToolError on an escape or when the sandbox cannot resolve the path.
 */
export async function confine(sandbox: Sandbox, root: VirtualRoot, modelPath: unknown): Promise<Confined> {
  const mapped = mapPath(root, modelPath);
  const r = await sandbox.exec(['bash', '-c', PROBE, 'probe', root.realRoot, mapped], { timeoutMs: 15_000 });
  const [realRoot, real, kind] = r.stdout.split('\n');
  if (r.exitCode !== 0 || !realRoot || !real || !kind) {
    throw new ToolError(`Could not resolve ${String(modelPath)} in the sandbox: ${r.stderr.trim() || `exit ${r.exitCode}`}`);
  }
  if (real !== realRoot && !real.startsWith(`${realRoot}/`)) {
    throw new ToolError(`The path ${String(modelPath)} is refused: a symbolic link leads outside ${root.virtual}`);
  }
  return { real, root: realRoot, kind: kind as Confined['kind'] };
}

/** The model-facing name of a resolved sandbox path (`/workspace/src/a.ts`). */
export function virtualName(root: VirtualRoot, c: Confined): string {
  return c.real === c.root ? root.virtual : posix.join(root.virtual, c.real.slice(c.root.length));
}

const ENTRY_PROBE = 'if [ -L "$1" ]; then echo other; elif [ -d "$1" ]; then echo dir; elif [ -f "$1" ]; then echo file; elif [ -e "$1" ]; then echo other; else echo none; fi';

/**
 * {@link confine} for an operation on the directory entry itself (delete, the source of a rename): symlinks are
 * resolved in the parent folders only, so a path that names a link acts on the link, never on what it points to
 * (deleting `memories/alias -> sub` removes the alias, not `sub`). A link is reported as kind `other`.
 * @throws ToolError as {@link confine} does.
 */
export async function confineEntry(sandbox: Sandbox, root: VirtualRoot, modelPath: unknown): Promise<Confined> {
  mapPath(root, modelPath);
  const abs = posix.resolve(root.virtual, modelPath as string);
  if (abs === root.virtual) return confine(sandbox, root, modelPath);
  const parent = await confine(sandbox, root, posix.dirname(abs));
  const real = posix.join(parent.real, posix.basename(abs));
  const r = await sandbox.exec(['bash', '-c', ENTRY_PROBE, 'probe', real], { timeoutMs: 15_000 });
  const kind = r.stdout.trim();
  if (r.exitCode !== 0 || !['file', 'dir', 'other', 'none'].includes(kind)) {
    throw new ToolError(`Could not inspect ${String(modelPath)} in the sandbox: ${r.stderr.trim() || `exit ${r.exitCode}`}`);
  }
  return { real, root: parent.root, kind: kind as Confined['kind'] };
}
