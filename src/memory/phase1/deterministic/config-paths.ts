import type { Step } from '../rollout.js';

/**
 * Which files a fix may change without it being a code change (issue 12): configuration and test-setup files of
 * the repository, and every file of the environment outside the workspace.
 */

// Ignore files (`.gitignore`, `.dockerignore`) say what the tools skip, never what the code does: a line added to
// one in the middle of a fix (a cache directory moved into the workspace) must not end the fix's chain.
const CONFIG_BASENAME =
  /^(\.(git|hg|docker|npm|prettier|eslint)ignore|\.gitattributes|conftest\.py|setup\.(cfg|py)|pyproject\.toml|tox\.ini|pytest\.ini|noxfile\.py|package\.json|\.npmrc|\.yarnrc(\.yml)?|\.pypirc|pip\.conf|\.jvmopts|\.sbtopts|\.bazelrc|\.Rprofile|\.Renviron|settings\.xml|toolchains\.xml|[\w.-]+\.conf|\.nvmrc|\.?tool-versions|tsconfig[\w.-]*\.json|[\w.-]*\.config\.[cm]?[jt]s|Makefile|GNUmakefile|CMakeLists\.txt|CMakePresets\.json|Dockerfile[\w.-]*|\.env[\w.-]*|go\.mod|go\.work|Cargo\.toml|rust-toolchain(\.toml)?|requirements[\w.-]*\.txt|Gemfile|[\w.-]+\.(toml|ya?ml|ini|cfg|properties))$/;

/**
 * An edit of a file that belongs to the repository (committed with the run's work), as opposed to local
 * environment files (`.env*`, anything outside the workspace such as `~/.npmrc` or `/etc/…`), which a
 * later run must set up again.
 */
export function oneTimeEdit(path: string): boolean {
  const base = path.split('/').pop() ?? path;
  if (/^\.env/.test(base)) return false;
  return !path.startsWith('/') || path.startsWith('/workspace/');
}

/** A file outside the workspace (`~/.m2/toolchains.xml`, `/etc/hosts`): the environment's, never the code's. */
export function environmentPath(path: string): boolean {
  return /^(~|\$HOME|\$\{HOME\})(\/|$)/.test(path) || (path.startsWith('/') && !path.startsWith('/workspace/') && path !== '/workspace');
}

/**
 * Configuration and test-setup files: changing them fixes how things run, not what the code does. Every file
 * outside the workspace is the environment's configuration (`environmentPath`).
 */
export function isConfigPath(path: string): boolean {
  const base = path.split('/').pop() ?? path;
  return CONFIG_BASENAME.test(base) || environmentPath(path) || /(^|\/)\.github\/workflows\//.test(path) || /(^|\/)\.ci\//.test(path) || /(^|\/)\.(mvn|cargo|config|bazelrc\.d)\//.test(path);
}

/**
 * What a small configuration edit wrote (` (to \`executeInTransaction=false\`)`), so the lesson says the change
 * and not only the file; nothing for a long one, which the file itself shows.
 */
export function editShown(step: Step): string {
  const text = String(step.input.file_text ?? step.input.new_str ?? step.input.content ?? '').trim();
  if (!text || text.length > 160 || text.split('\n').length > 3 || text.includes('`')) return '';
  return ` (to \`${text.replace(/\s*\n\s*/g, '; ')}\`)`;
}
