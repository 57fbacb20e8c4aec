import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * Where all of mnemara's state lives: `$MNEMARA_HOME`, else `$XDG_DATA_HOME/mnemara`,
 * else `~/.local/share/mnemara`. Returns an absolute path; does not create it.
 */
export function mnemaraHome(env: NodeJS.ProcessEnv = process.env): string {
  if (env.MNEMARA_HOME) return resolve(env.MNEMARA_HOME);
  const xdg = env.XDG_DATA_HOME || join(homedir(), '.local', 'share');
  return join(resolve(xdg), 'mnemara');
}

/** The snapshot store directory: `--store` when given, else `$MNEMARA_HOME/store`. */
export function defaultStoreDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(mnemaraHome(env), 'store');
}
