/**
 * Workspace files the run wrote that hold a token (issue 10, "Done when": no secret survives in any stored layer).
 * Redaction never rewrites the user's code (`config.js` with `const key = "sk-ant-…"` would stop working), so a
 * file like that is kept out of the workspace snapshot whole, like a credential file (`credential-files.ts`), and
 * set aside on the host for the user (`left-out.ts`).
 *
 * Only the high-confidence detectors decide: the provider-prefixed token shapes redaction uses (`redact.ts`,
 * SHAPES: `sk-ant-`, `ghp_`, `AKIA…`, `xoxb-`, `glpat-`, Slack and Discord webhooks …). Never the fuzzy ones
 * (a value under a secret-looking name, high entropy, prose, URL passwords, JWTs, PEM blocks inside code): those
 * flag type annotations, `user:pass@localhost` dev URLs, test fixtures and lock files, and a wrong guess here
 * would take a user's file out of their snapshot. PEM files are `credential-files.ts`'s, by whole content.
 */
import { logger } from '../config/logger.js';
import { findSecretKinds, redact, type SecretKind } from '../memory/redact.js';
import type { Sandbox } from '../sandbox/types.js';
import { DEPENDENCY_DIRS, keptFor, type LeaveOut, type WasThere } from './credential-files.js';
import { BASE64_TOKEN_ERE, base64PrefixTexts, base64TokenKinds } from './secret-base64.js';
import { archiveFindClause, archiveScanLine, shellQuote } from './secret-archives.js';
import { HEX_TOKEN_ERE, hexPrefixText, hexTokenKinds } from './secret-hex.js';
import { pathRecords, sectionText, type ScanSection, type SectionOutput } from './workspace-scan.js';

const log = logger('session');

/** The first bytes, and the last bytes, of each changed file that are scanned; a token between them is not seen. Bytes. */
export const SCAN_BYTES = 1024 * 1024;

/** Kinds whose shape alone says "secret" (the provider prefixes), as `redact.ts` names them. */
const HIGH_CONFIDENCE = new Set<SecretKind>([
  'anthropic_key', 'openai_key', 'aws_access_key_id', 'github_token', 'slack_token', 'slack_webhook', 'google_api_key',
  'stripe_key', 'gitlab_token', 'npm_token', 'huggingface_token', 'pypi_token', 'sendgrid_key', 'vault_token',
  'docker_hub_token', 'telegram_bot_token', 'discord_webhook', 'age_secret_key', 'provider_token',
]);

/**
 * The token shapes as `grep -E` alternatives: the same prefixes and lengths as redact.ts's SHAPES, without their
 * look-arounds (ERE has none); a boundary character either side is matched instead and the host checks each match
 * with the real rules. Kept in step with SHAPES by the test that runs a token of every kind through both.
 */
const SHAPES_ERE = [
  'sk-ant-[A-Za-z0-9_-]{16,}',
  'sk-(proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}',
  '(AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|ANPA|AIPA)[A-Z0-9]{16}',
  '(ghp|gho|ghs|ghu|ghr)_[A-Za-z0-9]{30,}',
  'github_pat_[A-Za-z0-9_]{30,}',
  'https://hooks\\.slack\\.com/(services|workflows|triggers)/[A-Za-z0-9_/-]+',
  'xox[abposrce]-[A-Za-z0-9-]{10,}',
  'AIza[0-9A-Za-z_-]{30,}',
  '(sk|rk)_(live|test)_[A-Za-z0-9]{10,}',
  'whsec_[A-Za-z0-9]{20,}',
  'gl(pat|dt|rt|ptt|soat|cbt|ft|imt|oas|agent|ffct)-[A-Za-z0-9_-]{20,}',
  '(npm|hf)_[A-Za-z0-9]{30,}',
  'pypi-AgE[A-Za-z0-9_-]{50,}',
  'SG\\.[A-Za-z0-9_-]{16,}\\.[A-Za-z0-9_-]{30,}',
  'hv[sbr]\\.[A-Za-z0-9_-]{20,}',
  'dckr_pat_[A-Za-z0-9_-]{20,}',
  '[0-9]{8,10}:AA[A-Za-z0-9_-]{30,}',
  'https://(ptb\\.|canary\\.)?discord(app)?\\.com/api/webhooks/[0-9]+/[A-Za-z0-9_-]+',
  'AGE-SECRET-KEY-1[0-9A-Z]{50,}',
  'shp(at|ss|ca|pa)_[a-fA-F0-9]{32}',
  'dop_v1_[a-f0-9]{64}',
  'gl(sa|c)_[A-Za-z0-9+/=_-]{32,}',
  'sntry[su]_[A-Za-z0-9+/=_-]{40,}',
  'dapi[a-f0-9]{32}',
  'gsk_[A-Za-z0-9]{40,}',
  'PMAK-[a-f0-9]{24}-[a-f0-9]{34}',
  'lin_api_[A-Za-z0-9]{40}',
  'dp\\.(pt|st|sa|ct|scim|audit)\\.[A-Za-z0-9]{40,}',
  'NRAK-[A-Z0-9]{27}',
  'ATATT3[A-Za-z0-9_=-]{50,}',
  '(sbp|pul-)[_]?[a-f0-9]{40}',
  'pscale_(tkn|pw|oauth)_[A-Za-z0-9_.-]{32,}',
  'figd_[A-Za-z0-9_-]{40,}',
  '(secret|ntn)_[A-Za-z0-9]{43,}',
  'r8_[A-Za-z0-9]{37}',
  'pplx-[A-Za-z0-9]{40,}',
  'xai-[A-Za-z0-9]{60,}',
  'SK[0-9a-f]{32}',
  'key-[0-9a-f]{32}',
  'rzp_(live|test)_[A-Za-z0-9]{14,}',
  'AKCp[A-Za-z0-9]{60,}',
];

/** One ERE: a token shape with the character before and after it (or a line's edge), for the host's check. */
export const TOKEN_ERE = `(^|[^A-Za-z0-9])(${SHAPES_ERE.join('|')})([^A-Za-z0-9]|$)`;

/**
 * A token with some characters written as escapes (`"\u0067hp_…"` in JSON, `\x67hp_…` in JS or Python source, each
 * backslash possibly doubled): the plain-token grep sees no prefix (eleventh trial: a JSON file kept one). A run of
 * token characters and escapes with an escape and 16 more after it; the host decodes it (redaction's escape rules).
 */
const ESCAPED_TOKEN_ERE = '\\\\+(u00[2-7][0-9a-fA-F]|x[2-7][0-9a-fA-F])([A-Za-z0-9_.-]|\\\\+(u00[2-7][0-9a-fA-F]|x[2-7][0-9a-fA-F])){16,}';

/**
 * The second grep's pattern: a token base64- or hex-encoded, or written with escapes (one grep for all: a third
 * pass over every file cost more).
 */
export const ENCODED_TOKEN_ERE = `${BASE64_TOKEN_ERE}|${HEX_TOKEN_ERE}|${ESCAPED_TOKEN_ERE}`;

/**
 * A loose object of a git repository in the workspace, its own or one inside it (`.git/objects/2a/74…`,
 * `vendor/lib/.git/objects/2a/74…`), workspace-relative.
 */
const GIT_OBJECT = /^(?:.+\/)?\.git\/objects\/[0-9a-f]{2}\/[0-9a-f]{38,62}$/;
const GIT_OBJECT_WHY = 'it is a git object the run wrote (a commit holds the token, even if a later commit deleted the file); taking it out would break the repository';
const GIT_FILE_WHY = "it is a file of a git repository in the workspace (its config: a remote's URL or an http.extraHeader); taking it out would break the repository";

/**
 * Reads NUL-separated loose object paths on stdin, inflates the first `argv[1]` bytes of each and prints
 * `path NUL match` per match of the ERE `argv[2]` (Python's `re` takes these patterns as they are). An object that
 * does not inflate is skipped. Packs are not read.
 */
const GIT_OBJECTS_PY = [
  'import re, sys, zlib',
  'n = int(sys.argv[1]); rx = re.compile(sys.argv[2].encode(), re.M)',
  'for p in sys.stdin.buffer.read().split(b"\\0"):',
  '    if not p: continue',
  '    try:',
  '        d = zlib.decompressobj().decompress(open(p, "rb").read(n), n)',
  '    except Exception: continue',
  '    for m in rx.finditer(d): sys.stdout.buffer.write(p + b"\\0" + m.group(0).strip(b"\\n") + b"\\n")',
].join('\n');


/** A changed file holding a token: its path (workspace-relative), the token kinds, and what was done. */
export interface SecretFile {
  path: string;
  kinds: SecretKind[];
  /** `left-out`: not in the workspace snapshot (listed in its `skipped`); `kept`: in it, with why. */
  action: 'left-out' | 'kept';
  why?: string;
  /** Where a `left-out` file is kept for the user (`<home>/left-out/<rollout-id>/<path>`, 0600). */
  savedAt?: string;
  /** The token is in the file's name: `path` is then the name redacted (the real one is never reported). */
  inName?: boolean;
}


/**
 * A documented example rather than a credential: a token that ends in `EXAMPLE` (AWS's `AKIAIOSFODNN7EXAMPLE`) or
 * a webhook with `xxx` segments (redaction still removes them from text: cheap there, costly here).
 */
const PLACEHOLDER = /EXAMPLE(?![A-Za-z0-9])|\/x{3,}(?:\/|$|[^A-Za-z0-9_-])/;

/** The high-confidence token kinds in `text` (a grep match with its boundary characters); `[]` for examples. Pure. */
export function tokenKinds(text: string): SecretKind[] {
  if (PLACEHOLDER.test(text)) return [];
  return findSecretKinds(text).filter((k) => HIGH_CONFIDENCE.has(k));
}

/**
 * The token kinds of one match of the scan's greps (`TOKEN_ERE` or `ENCODED_TOKEN_ERE`): a token as it is, else the
 * token its base64 or hex decodes to. `[]` for none (and for documented examples). Pure.
 */
export function matchKinds(match: string): SecretKind[] {
  const plain = tokenKinds(match);
  if (plain.length) return plain;
  const b64 = base64TokenKinds(match, tokenKinds);
  return b64.length ? b64 : hexTokenKinds(match, tokenKinds);
}

/**
 * Finds the files the run changed (ctime after `since`, sandbox seconds; not under `.git/`, installed
 * dependencies (`node_modules/` …) nor `skipDirs`, the memory layout redacted in place before) whose first or last 1 MiB holds a token of a high-confidence kind, with one
 * `grep -o` in the sandbox (cost follows the change: unchanged files are never read) and a check of each match on
 * the host. A file the run created is taken out through `leaveOut` and reported `left-out`; one that was in the
 * workspace before the run (`wasThere`) is the user's and stays, reported `kept` with why, and so does every file
 * when `keep` (`snapshot.keepCredentialFiles`) is set. `skip`: paths already handled (credential files), or a
 * promise of them, awaited after the sandbox's grep and before any file is set aside, so both scans run at once.
 * `scanned`: the grep's output, from the shared scan (`tokenFilesSection`, `workspace-scan.ts`). Never throws: a scan that fails is logged and leaves everything in place.
 */
export async function leaveOutSecretFiles(
  sandbox: Sandbox,
  since: number,
  options: { wasThere: WasThere; keep: boolean; leaveOut: LeaveOut; skipDirs: string[]; skip: Set<string> | Promise<Set<string>>; scanned?: SectionOutput },
): Promise<SecretFile[]> {
  const root = sandbox.workspaceDir;
  const section = tokenFilesSection('token-files', root, since, options.skipDirs);
  const found = await sectionText(sandbox, section, options.scanned, 120_000, 'could not look for tokens in the files the run wrote; none left out');
  if (found === null) return [];
  // Awaited only now: the grep ran while the scan that decides `skip` (credential files) ran beside it.
  const skip = await options.skip;
  const byPath = new Map<string, Set<SecretKind>>();
  const wrapped = new Set<string>();
  const add = (rel: string, kinds: SecretKind[]): void => {
    const set = byPath.get(rel) ?? new Set<SecretKind>();
    for (const k of kinds) set.add(k);
    byPath.set(rel, set);
  };
  const named = new Map<string, SecretKind[]>();
  const folders = new Map<string, SecretKind[]>();
  for (const [rel, match] of scanMatches(root, found)) {
    if (match === NAME_HIT) {
      const kinds = tokenKinds(rel.slice(rel.lastIndexOf('/') + 1));
      if (kinds.length) named.set(rel, kinds.sort());
      else {
        const folder = tokenFolder(rel);
        if (folder) folders.set(folder.path, folder.kinds);
      }
      continue;
    }
    if (skip.has(rel)) continue;
    const kinds = matchKinds(match);
    if (kinds.length) add(rel, kinds);
    else if (encodesPrefixOnly(match)) wrapped.add(rel);
  }
  const rescan = [...wrapped].filter((rel) => !byPath.has(rel)).slice(0, MAX_REJOINED);
  for (const [rel, match] of rescan.length ? scanMatches(root, await rejoinedMatches(sandbox, rescan)) : []) {
    const kinds = matchKinds(match);
    if (kinds.length) add(rel, kinds);
  }
  const out: SecretFile[] = [];
  for (const [rel, kinds] of [...named].sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (skip.has(rel) || byPath.has(rel)) continue;
    // Reported, set aside and listed under the name redacted: the name itself must not reach a summary or a manifest.
    const shown = shownName(rel);
    const there = options.wasThere(rel);
    if (options.keep || there !== false) {
      out.push({ path: shown, kinds, action: 'kept', inName: true, why: options.keep ? 'snapshot.keepCredentialFiles is set' : there === true ? 'it was in the workspace before the run (your file: it is never dropped)' : 'whether it was there before the run is not known' });
      continue;
    }
    const savedAt = await options.leaveOut(rel, shown);
    out.push(savedAt !== null ? { path: shown, kinds, action: 'left-out', inName: true, savedAt } : { path: shown, kinds, action: 'kept', inName: true, why: 'it could not be moved out of the workspace' });
  }
  // A folder is never moved out (it may hold the user's files too): reported once, under its name redacted.
  for (const [rel, kinds] of [...folders].sort(([a], [b]) => (a < b ? -1 : 1))) {
    out.push({ path: shownName(rel), kinds, action: 'kept', inName: true, why: FOLDER_WHY });
  }
  for (const [rel, set] of [...byPath].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const kinds = [...set].sort();
    if (GIT_OBJECT.test(rel)) {
      // Taking an object out would break the repository; the commit that holds it is the user's to rewrite.
      out.push({ path: rel, kinds, action: 'kept', why: GIT_OBJECT_WHY });
      continue;
    }
    if (/(?:^|\/)\.git\//.test(rel)) {
      // Another file of a repository inside the workspace (its config, a hook): the repository needs it.
      out.push({ path: rel, kinds, action: 'kept', why: GIT_FILE_WHY });
      continue;
    }
    const there = options.wasThere(rel);
    if (options.keep || there !== false) {
      const why = options.keep ? 'snapshot.keepCredentialFiles is set' : there === true ? 'it was in the workspace before the run (your file: it is never dropped)' : 'whether it was there before the run is not known';
      out.push({ path: rel, kinds, action: 'kept', why });
      continue;
    }
    const savedAt = await options.leaveOut(rel);
    if (savedAt !== null) out.push({ path: rel, kinds, action: 'left-out', savedAt });
    else out.push({ path: rel, kinds, action: 'kept', why: 'it could not be moved out of the workspace' });
  }
  for (const f of out) log.warn({ path: f.path, kinds: f.kinds, action: f.action, why: f.why }, 'a file the run wrote holds a token');
  return out;
}

/**
 * The scan of `leaveOutSecretFiles` (its `path NUL match` records), run by it or as a section of the shared scan
 * (`workspace-scan.ts`).
 */
export function tokenFilesSection(name: string, root: string, since: number, skipDirs: string[]): ScanSection {
  const prune = [
    ...['.git', ...skipDirs].map((d) => `-path "$1/${d.replace(/["$`\\]/g, '')}"`),
    ...DEPENDENCY_DIRS.map((d) => `-name '${d}'`),
  ].join(' -o ');
  // Files up to the bound are grepped whole, in batches (one process per batch, not per file); bigger ones only
  // their first and last bytes (rare: a pipe each; a log or dump the run wrote gets its token appended at the
  // end). One find sorts them into the two lists, and lists the archives apart too.
  const script = [
    'd=$(mktemp -d) || exit 0',
    `find "$1" -xdev \\( ${prune} \\) -prune -o -type f -newerct "@$2" ${archiveFindClause('$d/arch')} \\( -size -$(( $3 + 1 ))c -fprint0 "$d/small" -o -fprint0 "$d/big" \\) 2>/dev/null`,
    // Names that hold a token (`ghp_….txt`): from the same walk, one line each, marked by a \x01 match.
    `cat "$d/small" "$d/big" | grep -zE -e "$4" | xargs -0 -r printf '%s\\0\\001\\n'`,
    // Binary files too (`-a`): a SQLite database or a pickle keeps a token's text as it is; the shapes are long
    // enough that random bytes do not make one, and the host checks every match again.
    'xargs -0 -r grep -oaHZE -e "$4" -- < "$d/small" 2>/dev/null',
    // Base64 or hex of a token (`secret-base64.ts`, `secret-hex.ts`): a grep of its own, cheaper than one alternation
    // with the shapes.
    'xargs -0 -r grep -oIHZE -e "$5" -- < "$d/small" 2>/dev/null',
    `xargs -0 -r sh -c 'n=$1; re=$2; b=$3; shift 3; for f; do { head -c "$n" -- "$f"; echo; tail -c "$n" -- "$f"; } | grep -oIE -e "$re" -e "$b" | while IFS= read -r m; do printf "%s\\0%s\\n" "$f" "$m"; done; done' sh "$3" "$4" "$5" < "$d/big" 2>/dev/null`,
    // Loose git objects the run wrote (a commit of a token file, even one deleted by a later commit) are zlib'd:
    // grep cannot see into them. One python3 reads them all, first bytes only; without python3, none is read.
    // A repository inside the workspace (`vendor/lib/.git`, a `git init` in a subfolder) is not pruned by the walk
    // above: its loose objects are among the files listed there.
    `{ [ -d "$1/.git/objects" ] && find "$1/.git/objects" -xdev -type f -newerct "@$2" -path '*/objects/[0-9a-f][0-9a-f]/*' -print0 2>/dev/null;`,
    `  cat "$d/small" "$d/big" | grep -zE '/\\.git/objects/[0-9a-f]{2}/[0-9a-f]{38,62}$'; } > "$d/objects"`,
    // python3 only when there is an object to read: starting it and compiling the pattern cost ~0.2 s a session.
    `[ -s "$d/objects" ] && python3 -c ${shellQuote(GIT_OBJECTS_PY)} "$3" "$4" < "$d/objects" 2>/dev/null`,
    // Archives the run wrote (`secret-archives.ts`): compressed, and skipped as binary by the greps above.
    archiveScanLine('$d/arch'),
    'rm -rf "$d"; exit 0',
  ].join('\n');
  return { name, script, args: [root, String(since), String(SCAN_BYTES), TOKEN_ERE, ENCODED_TOKEN_ERE], maxBytes: 8 * 1024 * 1024 };
}

/** Why a folder whose name holds a token is kept (and reported, never moved). */
const FOLDER_WHY = "a folder's name holds the token (every path under it, the snapshot's tar headers and tree index repeat it)";

/** A workspace-relative path with each segment redacted, so that a token in a name is never shown. */
function shownName(rel: string): string {
  return rel.split('/').map((seg) => redact(seg).replace(/\//g, '_')).join('/');
}

/** The topmost folder of `rel` (workspace-relative, a file's path) whose own name holds a token, with its kinds. */
function tokenFolder(rel: string): { path: string; kinds: SecretKind[] } | null {
  const segs = rel.split('/').slice(0, -1);
  for (let i = 0; i < segs.length; i++) {
    const kinds = tokenKinds(segs[i]!);
    if (kinds.length) return { path: segs.slice(0, i + 1).join('/'), kinds: kinds.sort() };
  }
  return null;
}

/**
 * `path NUL match` records of the scan's greps as [workspace-relative path, match]; records outside `root` dropped.
 * Read so that a name with a newline in it stays one path (`pathRecords`): it cannot pass for a record of its own.
 */
function scanMatches(root: string, stdout: string): Array<[string, string]> {
  return pathRecords(stdout)
    .filter(([path]) => path.startsWith(`${root}/`))
    .map(([path, match]) => [path.slice(root.length + 1), match]);
}

/**
 * A base64 or hex match that decodes to a provider prefix without a whole token after it: the encoding was wrapped
 * over lines (`xxd -p` every 30 bytes, `od -An -tx1` every 16, `base64` every 57) and the line ended first. Pure.
 */
function encodesPrefixOnly(match: string): boolean {
  return hexPrefixText(match) !== null || base64PrefixTexts(match).length > 0;
}

/** The match the scan prints for a changed file whose own name holds a token (a name reaches the snapshot's tar headers and tree index whatever the content). */
const NAME_HIT = '\x01';

/** Files whose encoded prefix-only match sends them to a second grep (rare: each costs a pipe in the sandbox). */
const MAX_REJOINED = 100;

/**
 * The encoded-token grep (`ENCODED_TOKEN_ERE`) over each of `paths` (workspace-relative) with its whitespace taken
 * out, which joins a wrapped encoding back into one run: its first and last `SCAN_BYTES`, as the first scan read it.
 * The scan's `path NUL match` lines; '' when the exec fails (nothing more is found).
 */
async function rejoinedMatches(sandbox: Sandbox, paths: string[]): Promise<string> {
  const script = [
    'n=$1; re=$2; shift 2',
    'for f; do',
    `  { head -c "$n" -- "$f"; [ "$(wc -c < "$f")" -gt "$n" ] && tail -c "$n" -- "$f"; } 2>/dev/null | tr -d ' \\t\\r\\n' | grep -oE -e "$re" | while IFS= read -r m; do printf "%s\\0%s\\n" "$f" "$m"; done`,
    'done; exit 0',
  ].join('\n');
  const abs = paths.map((rel) => `${sandbox.workspaceDir}/${rel}`);
  const r = await sandbox.exec(['sh', '-c', script, 'sh', String(SCAN_BYTES), ENCODED_TOKEN_ERE, ...abs], { timeoutMs: 60_000, maxOutputBytes: 1024 * 1024 }).catch(() => null);
  return String(r?.stdout ?? '');
}

/** One line for the run summary: what the file holds, what was done, and what to do. */
export function secretFileMessage(f: SecretFile): string {
  const what = f.inName ? `${f.path} has a token in its name (${f.kinds.join(', ')}; shown redacted)` : `${f.path} holds a token (${f.kinds.join(', ')})`;
  if (f.why === FOLDER_WHY) {
    return `${f.path} is a folder with a token in its name (${f.kinds.join(', ')}; shown redacted) and is in the workspace snapshot: ${f.why}; rename the folder, snapshot again, and revoke the token`;
  }
  if (f.inName && f.action === 'kept') {
    return `${what} and is in the workspace snapshot: ${f.why}; rename the file, snapshot again, and revoke the token`;
  }
  if (f.action === 'left-out') {
    return `${what} and was left out of the workspace snapshot; ${keptFor(f.savedAt)}. Read tokens from the environment instead of writing them into files; to keep such files in snapshots, set snapshot.keepCredentialFiles=true`;
  }
  if (f.why === GIT_FILE_WHY) {
    return `${what} and is in the workspace snapshot: ${f.why}. Take the token out (git config --unset-all, git remote set-url, or a credential helper), snapshot again, and revoke the token`;
  }
  if (f.why === GIT_OBJECT_WHY) {
    return `${what} and is in the workspace snapshot: ${f.why}. Rewrite that commit out of the history (git reset or git rebase, then git reflog expire --expire=now --all && git gc --prune=now), snapshot again, and revoke the token`;
  }
  return `${what} and is in the workspace snapshot: ${f.why}; take the token out of the file (an environment variable) or add the file to snapshot.ignore`;
}
