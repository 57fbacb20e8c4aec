#!/usr/bin/env bash
# mnemara setup: one idempotent script (the README's first command, `npm run setup`).
#   1. Node packages (npm ci; skipped while node_modules matches package-lock.json)
#   2. a Docker engine that answers (on Debian as root: installs docker.io and starts dockerd when absent)
#   3. the base image debian:bookworm-slim (pulled; without a registry, built with debootstrap + docker import)
#   4. the sandbox image from Dockerfile.sandbox, tagged by content hash (built only when that tag is missing)
# Works unattended (CI=true, no stdin). A second run takes seconds. Exits non-zero, saying how to fix it,
# when a step cannot be done here.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=setup/lib.sh
source scripts/setup/lib.sh
exec </dev/null
export DEBIAN_FRONTEND=noninteractive

BASE_IMAGE=debian:bookworm-slim
DOCKERD_LOG=${MNEMARA_DOCKERD_LOG:-/var/log/dockerd.log}
PULL_TIMEOUT_S=${MNEMARA_PULL_TIMEOUT_S:-30}

source scripts/setup/node.sh
source scripts/setup/engine.sh
source scripts/setup/images.sh
source scripts/setup/corpus.sh

setup_node_packages
setup_engine
setup_base_image
setup_sandbox_image
setup_corpus
print_summary
