# Step 1 of scripts/setup.sh: Node and the npm packages.

setup_node_packages() {
  local t0; t0=$(now_ms)
  command -v node >/dev/null 2>&1 || fail "Node.js is not installed" \
    "install Node.js 20 or newer (https://nodejs.org, or: apt-get install nodejs npm on Debian trixie+)"
  local major; major=$(node -p 'process.versions.node.split(".")[0]')
  [ "$major" -ge 20 ] || fail "Node.js $(node --version) is too old; mnemara needs 20.5 or newer" \
    "install Node.js 20 or newer (https://nodejs.org)"

  local stamp=node_modules/.mnemara-setup-stamp want
  want=$(cat package.json package-lock.json 2>/dev/null | sha256)
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
    record packages "node_modules matches package-lock.json (kept)" "$t0"
    return
  fi
  # A tree installed before this script existed has no stamp; when npm agrees it is complete, keep it
  # rather than wiping it with `npm ci`.
  if [ -d node_modules ] && npm ls --depth=0 >/dev/null 2>&1; then
    echo "$want" > "$stamp"
    record packages "node_modules already complete (kept)" "$t0"
    return
  fi
  if [ -f package-lock.json ]; then
    say "installing Node packages (npm ci)"
    logged npm ci --no-audit --no-fund || fail "npm ci failed" "check that the npm registry is reachable, then run setup again"
  else
    say "installing Node packages (npm install; no package-lock.json)"
    logged npm install --no-audit --no-fund || fail "npm install failed" "check that the npm registry is reachable, then run setup again"
  fi
  echo "$want" > "$stamp"
  record packages "installed" "$t0"
}
