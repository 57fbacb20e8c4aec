# Helpers of scripts/setup.sh: step timing, logging, and the sandbox image tag (sourced, not run).

# Milliseconds since the epoch: bash 5's EPOCHREALTIME, else whole seconds (macOS's bash 3 and BSD date).
now_ms() {
  if [ -n "${EPOCHREALTIME:-}" ]; then local t=${EPOCHREALTIME/[.,]/}; echo $(( ${t:0:${#t}-3} ))
  else echo $(( $(date +%s) * 1000 )); fi
}
SETUP_T0=$(now_ms)
SUMMARY=()

# sha256 of stdin, hex: sha256sum (GNU) or shasum (macOS).
sha256() { if command -v sha256sum >/dev/null 2>&1; then sha256sum; else shasum -a 256; fi | cut -d' ' -f1; }
say() { printf '==> %s\n' "$*"; }
detail() { printf '    %s\n' "$*"; }
fail() {
  printf 'setup: %s\n' "$1" >&2
  shift
  for line in "$@"; do printf '  fix: %s\n' "$line" >&2; done
  exit 1
}

# record NAME WHAT START_MS: one line of the closing summary.
record() {
  local ms=$(( $(now_ms) - $3 ))
  SUMMARY+=("$(printf '%-16s %-52s %6.1f s' "$1" "$2" "$(echo "$ms" | awk '{printf "%.1f", $1/1000}')")")
}

print_summary() {
  local total_ms=$(( $(now_ms) - SETUP_T0 ))
  printf '\nsetup done in %s s\n' "$(echo "$total_ms" | awk '{printf "%.1f", $1/1000}')"
  for line in "${SUMMARY[@]}"; do printf '  %s\n' "$line"; done
}

# Runs a command as root: directly when we are root, else through non-interactive sudo.
as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo -n "$@"
  else return 126
  fi
}

# The sandbox user's uid and gid: the host user's, except that root maps to 1000 (same rule as
# src/sandbox/image-tag.ts sandboxUserIds).
agent_ids() {
  local uid gid
  uid=$(id -u); gid=$(id -g)
  if [ "$uid" = 0 ]; then uid=1000; gid=1000; fi
  if [ "$gid" = 0 ]; then gid=1000; fi
  echo "$uid $gid"
}

_tag_entry() {
  local exe=-
  # The owner's execute bit, portably: the 4th character of `ls -l` is x or s when set.
  case "$(ls -ld -- "$1" | cut -c4)" in x|s) exe=x ;; esac
  printf '%s\n%s\n%s\n' "$1" "$exe" "$(sha256 < "$1")"
}

# The content-hashed tag of the sandbox image; must equal sandboxImageTag() in src/sandbox/image-tag.ts
# (test/sandbox/image-tag.test.ts checks that they agree). Run from the repository root.
image_tag() {
  local uid gid f
  read -r uid gid < <(agent_ids)
  {
    _tag_entry Dockerfile.sandbox
    while IFS= read -r -d '' f; do _tag_entry "$f"; done < <(find sandbox-image -type f -print0 | LC_ALL=C sort -z)
    printf 'uid=%s\ngid=%s\n' "$uid" "$gid"
  } | sha256 | cut -c1-12 | sed 's/^/mnemara-sandbox:/'
}
