# Steps 3 and 4 of scripts/setup.sh: the base image and the sandbox image.

image_exists() { docker image inspect "$1" >/dev/null 2>&1; }

setup_base_image() {
  local t0; t0=$(now_ms)
  if image_exists "$BASE_IMAGE"; then
    record base-image "$BASE_IMAGE present (kept)" "$t0"
    return
  fi
  say "pulling $BASE_IMAGE (at most ${PULL_TIMEOUT_S} s)"
  local limit=()
  if command -v timeout >/dev/null 2>&1; then limit=(timeout "$PULL_TIMEOUT_S"); fi
  if logged ${limit[@]+"${limit[@]}"} docker pull "$BASE_IMAGE"; then
    record base-image "pulled $BASE_IMAGE" "$t0"
    return
  fi
  say "no registry answered; building $BASE_IMAGE with debootstrap"
  if ! command -v debootstrap >/dev/null 2>&1; then
    [ -f /etc/debian_version ] || fail "cannot pull $BASE_IMAGE and debootstrap is missing" \
      "make a registry reachable (docker pull $BASE_IMAGE), or install debootstrap"
    as_root true || fail "installing debootstrap needs root" "run setup as root, or: sudo apt-get install debootstrap"
    logged as_root apt-get update -q || fail "apt-get update failed" "check that Debian's package mirror is reachable"
    logged as_root apt-get install -y -q debootstrap || fail "apt-get install debootstrap failed" "see the log's tail above"
  fi
  as_root true || fail "debootstrap needs root" "run setup as root (sudo npm run setup)"
  local dir; dir=$(mktemp -d /tmp/mnemara-rootfs.XXXXXX)
  # The tree is 200 MB; never leave it behind, whatever happens.
  trap "as_root rm -rf '$dir'" EXIT
  logged as_root debootstrap --variant=minbase bookworm "$dir" http://deb.debian.org/debian ||
    fail "debootstrap failed" "check that http://deb.debian.org is reachable, then run setup again"
  [ -x "$dir/bin/bash" ] || fail "debootstrap did not produce a root filesystem" "see the log's tail above"
  say "importing the tree as $BASE_IMAGE"
  as_root tar -C "$dir" -c . 2>> "$SETUP_LOG" | docker import - "$BASE_IMAGE" >> "$SETUP_LOG" 2>&1 ||
    fail "docker import of the debootstrap tree failed" "see the log's tail above"
  as_root rm -rf "$dir"
  trap - EXIT
  record base-image "built $BASE_IMAGE (debootstrap + import)" "$t0"
}

setup_sandbox_image() {
  local t0 tag uid gid; t0=$(now_ms)
  tag=$(image_tag)
  if image_exists "$tag"; then
    record sandbox-image "$tag present (kept)" "$t0"
    return
  fi
  read -r uid gid < <(agent_ids)
  say "building the sandbox image $tag (uid $uid, gid $gid)"
  # Context is sandbox-image/ only: the repository would send node_modules to the daemon.
  logged docker build --build-arg "AGENT_UID=$uid" --build-arg "AGENT_GID=$gid" \
    -t "$tag" -f Dockerfile.sandbox sandbox-image || true
  image_exists "$tag" || fail "building the sandbox image failed" \
    "check that containers reach Debian's package mirror (apt-get in Dockerfile.sandbox), then run setup again"
  record sandbox-image "built $tag" "$t0"
}
