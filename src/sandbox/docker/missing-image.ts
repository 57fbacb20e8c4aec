import { SANDBOX_IMAGE_REPO } from '../image-tag.js';
import { SandboxError } from '../errors.js';

/**
 * What the engine's 404 on creating the container means for `image`. mnemara's own image
 * (`mnemara-sandbox:<hash>`) is built by `npm run setup`; any other name came from `sandbox.image`
 * (`--set sandbox.image=…`, MNEMARA_SANDBOX_IMAGE), where "run setup" sent a new user to rebuild an image that
 * was not the one missing (a typo, or an image never pulled): the hint then says the name is not on this
 * engine and how to pull or build it, or fix the name. Returns `SandboxError('IMAGE_MISSING')` either way.
 */
export function missingImageError(image: string, cause: unknown): SandboxError {
  if (image.startsWith(`${SANDBOX_IMAGE_REPO}:`)) {
    return new SandboxError('IMAGE_MISSING', `the sandbox image ${image} is not built`, {
      hint: 'run `npm run setup` (scripts/setup.sh) to build it',
      cause,
    });
  }
  return new SandboxError('IMAGE_MISSING', `the sandbox image ${image} (sandbox.image) does not exist on this Docker engine`, {
    hint:
      `Check the name (\`docker image ls\` lists the images there), then \`docker pull ${image}\` or build it ` +
      `(\`docker build -t ${image} DIR\`; it needs what Dockerfile.sandbox installs, docs/sandbox.md), or unset ` +
      'sandbox.image to use mnemara\'s own image, which `npm run setup` builds.',
    cause,
  });
}
