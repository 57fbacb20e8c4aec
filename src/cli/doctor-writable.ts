import { accessSync, constants, existsSync } from 'node:fs';
import { dirname } from 'node:path';
import type { DoctorCheck } from './commands/doctor.js';

/**
 * Whether mnemara can write where it must: the home and the store directory (or, not yet made, their nearest
 * existing parent). A read-only mount made doctor say "ready" while every run failed with EROFS (trial 24 N4).
 */
export function checkWritable(home: string, storeDir: string): DoctorCheck {
  const denied: string[] = [];
  for (const dir of new Set([home, storeDir])) {
    let at = dir;
    while (!existsSync(at) && dirname(at) !== at) at = dirname(at);
    try {
      accessSync(at, constants.W_OK);
    } catch (err) {
      denied.push(`${at} (${(err as NodeJS.ErrnoException).code ?? 'not writable'})`);
    }
  }
  if (denied.length === 0) return { name: 'writable', ok: true, required: true, detail: `home and store can be written (${home}${storeDir.startsWith(home) ? '' : `, ${storeDir}`})` };
  return {
    name: 'writable', ok: false, required: true, detail: `cannot write ${denied.join(', ')}`,
    fix: 'MNEMARA_HOME and the store must be writable directories: fix the permissions or the mount, or point MNEMARA_HOME (or --store) at one',
  };
}
