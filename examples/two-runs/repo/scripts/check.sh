#!/usr/bin/env bash
# Runs the test suite. The package lives under src/ and is not installed, so the tests only import it
# with PYTHONPATH=src; `python3 -m unittest` from the root fails with "No module named 'durations'".
set -euo pipefail
cd "$(dirname "$0")/.."
export PYTHONPATH=src
exec python3 -m unittest discover -s tests "$@"
