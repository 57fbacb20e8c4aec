import type { Command } from 'commander';

/** Registers `mnemara run` (being built; see the issue that owns this command). */
export function registerRunCommand(_program: Command): void {}
