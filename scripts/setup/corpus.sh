# Step of scripts/setup.sh: the real-project corpus of test/large/real-workspaces.test.ts (sourced, not run).
# A published npm package's source (express 4.21.2, from `npm pack`) with its dependencies and dev
# dependencies installed by `npm ci` from the npm registry, against the lock file pinned in
# scripts/setup/corpus/. Cached outside the clone (MNEMARA_CORPUS_DIR, default /var/cache/mnemara-corpus),
# so CI and later runs reuse it; a second run takes milliseconds. One progress line; npm's output goes to
# the log file. A failure (no registry) is reported and leaves the large test to say what is missing.

CORPUS_PACKAGE=express
CORPUS_VERSION=4.21.2

setup_corpus() {
  local t0; t0=$(now_ms)
  local cache=${MNEMARA_CORPUS_DIR:-/var/cache/mnemara-corpus}
  local dest="$cache/$CORPUS_PACKAGE-$CORPUS_VERSION"
  local lock="$PWD/scripts/setup/corpus/$CORPUS_PACKAGE-$CORPUS_VERSION.package-lock.json"
  local log="$cache/setup.log"
  if [ -f "$dest/.mnemara-corpus-ready" ] && cmp -s "$lock" "$dest/package-lock.json"; then
    record corpus "$CORPUS_PACKAGE@$CORPUS_VERSION with dependencies (cached)" "$t0"
    return
  fi
  mkdir -p "$cache" || { record corpus "cannot create $cache (set MNEMARA_CORPUS_DIR)" "$t0"; return; }
  say "caching the real-project test corpus ($CORPUS_PACKAGE@$CORPUS_VERSION + npm ci) in $dest; log $log"
  local tmp; tmp=$(mktemp -d "$cache/.tmp-XXXXXX")
  if (
    cd "$tmp" &&
      npm pack "$CORPUS_PACKAGE@$CORPUS_VERSION" --silent &&
      mkdir src && tar -xzf "$CORPUS_PACKAGE-$CORPUS_VERSION.tgz" -C src --strip-components=1 &&
      cp "$lock" src/package-lock.json &&
      cd src && npm ci --ignore-scripts --no-audit --no-fund
  ) >>"$log" 2>&1; then
    rm -rf "$dest" && mv "$tmp/src" "$dest" && touch "$dest/.mnemara-corpus-ready"
    rm -rf "$tmp"
    record corpus "$CORPUS_PACKAGE@$CORPUS_VERSION with dependencies (installed)" "$t0"
  else
    rm -rf "$tmp"
    record corpus "FAILED (see $log); test/large/real-workspaces.test.ts will fail" "$t0"
  fi
}
