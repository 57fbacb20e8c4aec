import type { Command } from 'commander';

/** Registers `mnemara config` (being built; see the issue that owns this command). */
export function registerConfigCommand(_program: Command): void {}
