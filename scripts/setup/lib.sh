# Helpers of scripts/setup.sh: step timing, logging, and the sandbox image tag (sourced, not run).

# Milliseconds since the epoch: bash 5's EPOCHREALTIME, else whole seconds (macOS's bash 3 and BSD date).
now_ms() {
  if [ -n "${EPOCHREALTIME:-}" ]; then local t=${EPOCHREALTIME/[.,]/}; echo $(( ${t:0:${#t}-3} ))
  else echo $(( $(date +%s) * 1000 )); fi
}
SETUP_T0=$(now_ms)

# sha256 of stdin, hex: sha256sum (GNU) or shasum (macOS).
sha256() { if command -v sha256sum >/dev/null 2>&1; then sha256sum; else shasum -a 256; fi | cut -d' ' -f1; }
# Where the tools' own output goes (apt, debootstrap, docker build, npm ci): shown in full only with
# --verbose (MNEMARA_SETUP_VERBOSE=1) or, as its tail, when a step fails.
SETUP_LOG=${MNEMARA_SETUP_LOG:-$(mktemp "${TMPDIR:-/tmp}/mnemara-setup-XXXXXX")}
SETUP_VERBOSE=${MNEMARA_SETUP_VERBOSE:-0}
: > "$SETUP_LOG" 2>/dev/null || { SETUP_LOG=$(mktemp); : > "$SETUP_LOG"; }

# A long step starting (one line; the step's result line follows when it ends).
say() { printf '… %s\n' "$*"; printf '==> %s\n' "$*" >> "$SETUP_LOG"; }
detail() { printf '    %s\n' "$*" >> "$SETUP_LOG"; }
fail() {
  if [ -s "$SETUP_LOG" ] && [ "$SETUP_VERBOSE" != 1 ]; then
    printf '\n--- last lines of %s ---\n' "$SETUP_LOG" >&2
    tail -n 25 "$SETUP_LOG" >&2
    printf -- '---\n' >&2
  fi
  printf 'setup: %s\n' "$1" >&2
  shift
  for line in "$@"; do printf '  fix: %s\n' "$line" >&2; done
  printf '  full log: %s\n' "$SETUP_LOG" >&2
  exit 1
}

# logged CMD...: runs CMD with its output appended to the log (and shown too with --verbose); returns its status.
logged() {
  printf '$ %s\n' "$*" >> "$SETUP_LOG"
  if [ "$SETUP_VERBOSE" = 1 ]; then
    "$@" 2>&1 | tee -a "$SETUP_LOG"
    return "${PIPESTATUS[0]}"
  fi
  "$@" >> "$SETUP_LOG" 2>&1
}

secs() { echo "$1" | awk '{printf "%.1f", $1/1000}'; }

# record NAME WHAT START_MS: the phase's one line, printed when it ends.
record() {
  local ms=$(( $(now_ms) - $3 ))
  printf '✓ %-14s %-56s %5s s\n' "$1" "$2" "$(secs "$ms")"
}

print_summary() {
  local took; took=$(secs $(( $(now_ms) - SETUP_T0 )))
  if [ -s "$SETUP_LOG" ]; then printf 'setup done in %s s (tools'"'"' output: %s)\n' "$took" "$SETUP_LOG"
  else rm -f "$SETUP_LOG"; printf 'setup done in %s s\n' "$took"; fi
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
