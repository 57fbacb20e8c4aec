import type { Command } from 'commander';

/** Registers `mnemara sandbox` (being built; see the issue that owns this command). */
export function registerSandboxCommand(_program: Command): void {}
