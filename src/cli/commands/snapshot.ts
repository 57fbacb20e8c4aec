import type { Command } from 'commander';

/** Registers `mnemara snapshot` (being built; see the issue that owns this command). */
export function registerSnapshotCommand(_program: Command): void {}
