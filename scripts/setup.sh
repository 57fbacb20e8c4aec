#!/usr/bin/env bash
# mnemara setup: one idempotent script (the README's first command, `npm run setup`).
#   1. Node packages (npm ci; skipped while node_modules matches package-lock.json)
#   2. a Docker engine that answers (on Debian as root: installs docker.io and starts dockerd when absent)
#   3. the base image debian:bookworm-slim (pulled; without a registry, built with debootstrap + docker import)
#   4. the sandbox image from Dockerfile.sandbox, tagged by content hash (built only when that tag is missing)
#   5. `mnemara` on PATH: a link to bin/mnemara.js in /usr/local/bin (root) or ~/.local/bin
# Works unattended (CI=true, no stdin). A second run takes seconds. Exits non-zero, saying how to fix it,
# when a step cannot be done here. Prints one line per step; the tools' own output goes to a log file
# (path printed; $MNEMARA_SETUP_LOG), shown in full with --verbose and as its tail when a step fails.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
for arg in "$@"; do
  case "$arg" in
    -v|--verbose) export MNEMARA_SETUP_VERBOSE=1 ;;
    -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) printf 'setup: unknown option %s (use --verbose or --help)\n' "$arg" >&2; exit 2 ;;
  esac
done
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
source scripts/setup/command.sh
source scripts/setup/corpus.sh

setup_node_packages
setup_engine
setup_base_image
setup_sandbox_image
setup_command
setup_corpus
print_summary
