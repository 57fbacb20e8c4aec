import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { MnemaraError } from '../config/errors.js';
import { PACKAGE_ROOT } from '../config/version.js';
import { parseFrontMatter } from './front-matter.js';

/** A prompt from `src/memory/prompts/<name>.md`: its text and the version recorded in every file it produces. */
export interface Prompt {
  name: string;
  version: string;
  text: string;
}

/** Where prompt files live (shipped with the package: `files` in package.json lists this folder). */
export const PROMPTS_DIR = join(PACKAGE_ROOT, 'src', 'memory', 'prompts');

/**
 * Loads `<name>.md` from the prompts folder. The file starts with front matter holding `version`.
 * @throws MnemaraError `INTERNAL_PROMPT` when the file is missing or has no version (a broken install).
 */
export async function loadPrompt(name: string, dir = PROMPTS_DIR): Promise<Prompt> {
  const file = join(dir, `${name}.md`);
  const text = await readFile(file, 'utf8').catch((cause: unknown) => {
    throw new MnemaraError('INTERNAL_PROMPT', `prompt file ${file} cannot be read`, { hint: 'Reinstall mnemara: the package ships src/memory/prompts/.', cause });
  });
  const fm = parseFrontMatter(text);
  if (!fm?.fields.version) throw new MnemaraError('INTERNAL_PROMPT', `prompt file ${file} has no version in its front matter`);
  return { name, version: fm.fields.version, text: fm.body.trim() };
}
