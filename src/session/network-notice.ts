import type { MnemaraConfig } from '../config/schema.js';
import type { SessionNotice } from './types.js';

/**
 * The `shared-network` notice when the Docker sandbox runs in another namespace's network (`sandbox.network` /
 * `--network` `host` or `container:<id>`), else null. The twelfth trial's `--network host` passed without a word,
 * although the "hardened sandbox" then reaches the host's localhost services, the model gateway and cloud
 * metadata endpoints. `bridge` (its own namespace, NAT to the outside) and `none` (the default) say nothing. Pure.
 */
export function networkNotice(config: MnemaraConfig): SessionNotice | null {
  const mode = config.sandbox.network;
  if (config.sandbox.backend !== 'docker' || !(mode === 'host' || mode.startsWith('container:'))) return null;
  const whose = mode === 'host' ? "this host's" : `container ${mode.slice('container:'.length)}'s`;
  return {
    kind: 'shared-network',
    file: '',
    message: `the sandbox shares ${whose} network (--network ${mode}): the agent's commands reach every service listening on its localhost, and whatever it can reach (cloud metadata endpoints, the model gateway)`,
    hint: 'for internet access in a network of its own, use --network bridge; leave --network out for none (the default)',
  };
}
