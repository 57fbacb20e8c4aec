/**
 * Twelfth new-user trial F19: `--network host` was taken without a word, although the sandbox then reaches the
 * host's localhost services, the model gateway and cloud metadata endpoints. A shared network is now a warning
 * of the run (a notice in the result and on stderr); a network of its own (`bridge`) or none says nothing.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { networkNotice } from '../../src/session/network-notice.js';

const config = (network: string, backend = 'docker') =>
  loadConfig({ env: { MNEMARA_HOME: '/tmp/mnemara-network-notice' }, flags: [{ path: 'sandbox.network', value: network, flag: '--network' }, { path: 'sandbox.backend', value: backend, flag: '--set' }] }).config;

describe('networkNotice', () => {
  it.each([
    ['host', "this host's network"],
    ['container:db1', "container db1's network"],
  ])('warns for --network %s', (mode, says) => {
    const n = networkNotice(config(mode));
    expect(n).toMatchObject({ kind: 'shared-network', file: '' });
    expect(n?.message).toContain(says);
    expect(n?.message).toContain('localhost');
    expect(n?.hint).toContain('--network bridge');
  });

  it.each(['none', 'bridge', 'my-net'])('says nothing for --network %s (a network of its own)', (mode) => {
    expect(networkNotice(config(mode))).toBeNull();
  });

  it('says nothing for the local backend, which has no network of its own to share', () => {
    expect(networkNotice(config('host', 'local'))).toBeNull();
  });
});
