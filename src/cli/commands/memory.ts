import type { Command } from 'commander';

/** Registers `mnemara memory` (being built; see the issue that owns this command). */
export function registerMemoryCommand(_program: Command): void {}
