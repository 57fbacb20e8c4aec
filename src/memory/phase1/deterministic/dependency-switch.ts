import { splitCommand } from '../commands.js';
import { lastAssistantText, sentencesOf } from '../findings.js';
import { commandOf, isEdit, type RolloutView } from '../rollout.js';
import { pushAll } from '../../../config/arrays.js';

/**
 * Dependency manifests of the ecosystems the rules know: a line added here is a library the project now uses.
 */
const MANIFEST = /(^|\/)(requirements([\w.-]*|\/[\w.-]+)\.(txt|in)|pyproject\.toml|setup\.cfg|Pipfile|package\.json|go\.mod|Cargo\.toml|Gemfile|[\w-]+\.gemspec|composer\.json|pom\.xml|build\.gradle(\.kts)?|mix\.exs|deps\.edn|project\.clj|[\w.-]+\.csproj|Package\.swift|pubspec\.yaml|package\.yaml|[\w-]+\.cabal|rebar\.config|DESCRIPTION|vcpkg\.json|conanfile\.txt|deno\.jsonc?)$/;

/** A package manager adding a library (`go get`, `cargo add`, `pnpm add`, `poetry add`, `composer require` …): its operands. */
const ADDS = /^(go get|cargo add|(npm|pnpm|yarn|bun) (add|install|i)|poetry add|uv add|bundle add|composer require|dotnet add|deno add)$/;
/** A package manager removing one (`cargo remove`, `npm uninstall`, `pip uninstall` …). */
const REMOVES = /^(cargo (remove|rm)|(npm|pnpm|yarn|bun) (remove|uninstall|rm|un)|poetry remove|uv remove|pip3? uninstall|bundle remove|composer remove|dotnet remove)$/;

/** Name-like words of a text (`ldap3`, `modernc.org/sqlite`, `@scope/pkg`), versions and pins cut off. */
function names(text: string): string[] {
  return [...text.matchAll(/[@A-Za-z][\w.@/-]*\w/g)].map((m) => m[0].replace(/@v?\d[\w.-]*$/, '')).filter((w) => w.length >= 3 && /[a-z]/i.test(w) && !/^v?\d/.test(w));
}

/** The library names one edit added (words of its new text not in its old text), and those it removed. */
function editNames(view: RolloutView, manifestOnly: boolean): { added: string[]; removed: string[] } {
  const added: string[] = [];
  const removed: string[] = [];
  for (const s of view.steps) {
    if (!isEdit(s) || s.isError) continue;
    const manifest = MANIFEST.test(String(s.input.path));
    const oldWords = names(String(s.input.old_str ?? ''));
    const newWords = names(String(s.input.new_str ?? s.input.file_text ?? ''));
    if (manifest) pushAll(added, newWords.filter((w) => !oldWords.includes(w)));
    if (manifest || !manifestOnly) pushAll(removed, oldWords.filter((w) => !newWords.includes(w)));
  }
  return { added, removed };
}

/** The operands of package-manager commands that passed, added and removed. */
function commandNames(view: RolloutView): { added: string[]; removed: string[] } {
  const added: string[] = [];
  const removed: string[] = [];
  for (const s of view.steps) {
    const cmd = commandOf(s);
    if (!cmd || s.exitCode !== 0) continue;
    for (const seg of splitCommand(cmd)) {
      const operands = seg.args.filter((a) => !a.startsWith('-'));
      const head = `${seg.program} ${operands[0] ?? ''}`;
      const words = operands.slice(1).flatMap(names);
      if (ADDS.test(head)) pushAll(added, words);
      else if (REMOVES.test(head)) pushAll(removed, words);
    }
  }
  return { added, removed };
}

/** Whether the sentence names a library: whole, or by its last path part (`go-sqlite3` of `github.com/mattn/go-sqlite3`). */
function mentions(sentence: string, lib: string): boolean {
  const tail = lib.split('/').at(-1)!;
  const has = (w: string) => new RegExp(`(?<![\\w.@/-])(?:[\\w.-]+/)*${w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w/-])`).test(sentence);
  return has(lib) || (tail.length >= 4 && tail !== lib && has(tail));
}

/**
 * The sentences of a completed run's final message that say the repository switched libraries: they name a
 * library the run added (a new line in a dependency manifest, or `go get` / `cargo add` / `pnpm add` …) and one
 * it took out (the text an edit replaced — a pin, an import — or `cargo remove`, `pip uninstall` …), in any
 * wording or language ("Replaced python-ldap with ldap3", "Switched the store to modernc.org/sqlite;
 * mattn/go-sqlite3 is gone"). Round 22, heldout-n: such a switch, stated only in the closing message, was lost,
 * because the wording rules want "from X to Y". "Replaced the loop with an iterator" names no library and stays
 * the run's own work.
 */
export function dependencySwitches(view: RolloutView): { text: string; line: number }[] {
  if (view.outcome !== 'completed') return [];
  const final = lastAssistantText(view);
  if (!final) return [];
  const edits = editNames(view, false);
  const cmds = commandNames(view);
  const added = [...new Set([...edits.added, ...cmds.added])];
  if (added.length === 0) return [];
  const removed = [...new Set([...edits.removed, ...cmds.removed])].filter((r) => !added.includes(r));
  const out: { text: string; line: number }[] = [];
  for (const sentence of sentencesOf(final.text)) {
    const lib = added.find((a) => mentions(sentence, a));
    if (!lib) continue;
    if (!removed.some((r) => !lib.includes(r) && !r.includes(lib) && mentions(sentence, r))) continue;
    out.push({ text: sentence, line: final.line });
  }
  return out;
}
