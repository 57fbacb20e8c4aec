# Step 2 of scripts/setup.sh: a Docker engine that answers.

engine_answers() { docker info >/dev/null 2>&1; }

setup_engine() {
  local t0; t0=$(now_ms)
  if command -v docker >/dev/null 2>&1 && engine_answers; then
    record engine "Docker $(docker version --format '{{.Server.Version}}') answers" "$t0"
    return
  fi
  if [ ! -f /etc/debian_version ]; then
    fail "no Docker engine answers, and this is not Debian, where setup could install one" \
      "install Docker Engine (https://docs.docker.com/engine/install/) or Docker Desktop, start it, and run setup again" \
      "or use mnemara without isolation: --sandbox local"
  fi
  as_root true || fail "no Docker engine answers, and installing one needs root" \
    "run setup as root (sudo npm run setup), or: sudo apt-get install docker.io && sudo systemctl start docker"
  local did=""
  if ! command -v dockerd >/dev/null 2>&1; then
    say "installing the Docker engine (apt-get install docker.io)"
    logged as_root apt-get update -q || fail "apt-get update failed" "check that Debian's package mirror is reachable"
    logged as_root apt-get install -y -q docker.io || fail "apt-get install docker.io failed" "see the log's tail above"
    did="installed docker.io, "
  fi
  if ! engine_answers; then
    if pgrep -x dockerd >/dev/null 2>&1; then
      say "dockerd is running but does not answer yet; waiting"
    else
      say "starting dockerd (log: $DOCKERD_LOG)"
      # setsid + nohup: the daemon must outlive this script (and CI's step), not die with its process group.
      as_root sh -c "setsid nohup dockerd > '$DOCKERD_LOG' 2>&1 < /dev/null &"
    fi
    local waited=0
    until engine_answers; do
      if [ "$waited" -ge 60 ]; then
        tail -n 20 "$DOCKERD_LOG" >> "$SETUP_LOG" 2>/dev/null || true
        fail "dockerd did not answer within 60 s (log: $DOCKERD_LOG)" \
          "read $DOCKERD_LOG; a common cause is a kernel without overlayfs or cgroups"
      fi
      sleep 1
      waited=$((waited + 1))
    done
    did="${did}started dockerd"
  fi
  # A non-root user that is not in the docker group cannot use the socket even though the engine runs.
  docker info >/dev/null 2>&1 || fail "the engine runs but $(id -un) cannot use it" \
    "add yourself to the docker group (sudo usermod -aG docker $(id -un)) and log in again"
  record engine "${did:-engine answers}" "$t0"
}
