import { DockerSandbox } from '../../src/sandbox/docker/docker-sandbox.js';
import { sandboxContract } from './contract.case.js';

sandboxContract({
  name: 'docker',
  create: (sessionId) => DockerSandbox.create({ sessionId }),
  ownerName: 'agent',
});
