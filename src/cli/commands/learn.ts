import type { Command } from 'commander';

/** Registers `mnemara learn` (being built; see the issue that owns this command). */
export function registerLearnCommand(_program: Command): void {}
