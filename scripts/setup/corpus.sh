# Step of scripts/setup.sh: the real-project corpus of test/large/real-workspaces.test.ts (sourced, not run).
# A published npm package's source (axios 1.7.9, from `npm pack`) with its dependencies AND dev dependencies
# installed from the npm registry: about 400 MB and 40,000 entries (2,185 packages, `.bin` symlinks), the size
# of a real checkout someone works in. The versions are pinned by a lock file kept in this repository
# (scripts/setup/corpus-lock.json, installed with `npm ci`): resolving them by date (`npm install --before`) failed
# on a registry mirror whose publish times differ from npm's (trial 23: "No matching version found for
# call-bound@^1.0.3 with a date before 1/1/2025"), three times, ten minutes. Cached outside the clone
# (MNEMARA_CORPUS_DIR, default /var/cache/mnemara-corpus) under a ready marker naming the package and the lock's
# digest, so CI and later runs reuse it; a second run takes milliseconds. The registry is asked with npm's own
# retries, and the whole install is tried CORPUS_ATTEMPTS times unless npm says a version does not exist (ETARGET,
# E404: no retry will find it); one progress line, npm's output goes to the log file. A failure is reported with
# the log's last npm error line and leaves the large test to say what is missing.

CORPUS_PACKAGE=axios
CORPUS_VERSION=1.7.9
CORPUS_LOCK=${CORPUS_LOCK:-$PWD/scripts/setup/corpus-lock.json}
CORPUS_ATTEMPTS=${MNEMARA_CORPUS_ATTEMPTS:-3}

# The ready marker's content: the package and the lock file's digest (a new lock makes a new corpus).
corpus_key() { printf '%s@%s lock %s\n' "$CORPUS_PACKAGE" "$CORPUS_VERSION" "$(sha256sum "$CORPUS_LOCK" | cut -c1-16)"; }

# One attempt in a fresh directory $1: fetch the package, unpack it, install everything the lock file names.
corpus_attempt() {
  local tmp=$1
  cd "$tmp" &&
    npm pack "$CORPUS_PACKAGE@$CORPUS_VERSION" --fetch-retries=5 --fetch-retry-mintimeout=2000 &&
    mkdir src && tar -xzf "$CORPUS_PACKAGE-$CORPUS_VERSION.tgz" -C src --strip-components=1 &&
    cp "$CORPUS_LOCK" src/package-lock.json &&
    cd src &&
    npm ci --include=dev --ignore-scripts --no-audit --no-fund \
      --fetch-retries=5 --fetch-retry-mintimeout=2000 --fetch-retry-maxtimeout=60000 &&
    [ -f package-lock.json ] && [ -d node_modules ]
}

setup_corpus() {
  local t0; t0=$(now_ms)
  local cache=${MNEMARA_CORPUS_DIR:-/var/cache/mnemara-corpus}
  local dest="$cache/$CORPUS_PACKAGE-$CORPUS_VERSION"
  local log="$cache/setup.log"
  if [ -f "$dest/.mnemara-corpus-ready" ] && [ "$(cat "$dest/.mnemara-corpus-ready")" = "$(corpus_key)" ]; then
    record corpus "$CORPUS_PACKAGE@$CORPUS_VERSION with dev dependencies (cached)" "$t0"
    return
  fi
  mkdir -p "$cache" || { record corpus "cannot create $cache (set MNEMARA_CORPUS_DIR to a writable directory)" "$t0"; return; }
  say "caching the real-project test corpus ($CORPUS_PACKAGE@$CORPUS_VERSION + dev dependencies, ~400 MB) in $dest; log $log"
  local attempt tmp
  for attempt in $(seq 1 "$CORPUS_ATTEMPTS"); do
    tmp=$(mktemp -d "$cache/.tmp-XXXXXX")
    if (corpus_attempt "$tmp") >>"$log" 2>&1; then
      rm -rf "$dest" && mv "$tmp/src" "$dest" && corpus_key >"$dest/.mnemara-corpus-ready"
      rm -rf "$tmp"
      record corpus "$CORPUS_PACKAGE@$CORPUS_VERSION with dev dependencies (installed, attempt $attempt)" "$t0"
      return
    fi
    rm -rf "$tmp"
    # A version the registry does not have is not transient: say so now instead of after two more tries.
    tail -n 20 "$log" | grep -qE 'npm (ERR!|error) code (ETARGET|E404)' && break
    [ "$attempt" -lt "$CORPUS_ATTEMPTS" ] && sleep $((attempt * 10))
  done
  local why; why=$(grep -E 'npm (ERR!|error) ' "$log" | grep -v 'complete log of this run' | tail -n 1 | cut -c1-160 || true)
  # No npm error line (npm killed, a tar failure): the log's last line is the next best reason.
  [ -n "$why" ] || why=$(grep -v '^[[:space:]]*$' "$log" | tail -n 1 | cut -c1-160 || true)
  printf '✗ %-14s FAILED after %s attempts: %s\n    is registry.npmjs.org reachable? full log: %s; test/large/real-workspaces.test.ts (c) will fail until a setup succeeds\n' \
    corpus "$attempt" "${why:-the log is empty}" "$log" >&2
}
