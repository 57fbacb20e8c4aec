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
  if ${limit[@]+"${limit[@]}"} docker pull "$BASE_IMAGE"; then
    record base-image "pulled $BASE_IMAGE" "$t0"
    return
  fi
  say "no registry answered; building $BASE_IMAGE with debootstrap"
  if ! command -v debootstrap >/dev/null 2>&1; then
    [ -f /etc/debian_version ] || fail "cannot pull $BASE_IMAGE and debootstrap is missing" \
      "make a registry reachable (docker pull $BASE_IMAGE), or install debootstrap"
    as_root true || fail "installing debootstrap needs root" "run setup as root, or: sudo apt-get install debootstrap"
    as_root apt-get update -q
    as_root apt-get install -y -q debootstrap
  fi
  as_root true || fail "debootstrap needs root" "run setup as root (sudo npm run setup)"
  local dir; dir=$(mktemp -d /tmp/mnemara-rootfs.XXXXXX)
  # The tree is 200 MB; never leave it behind, whatever happens.
  trap "as_root rm -rf '$dir'" EXIT
  local n=0 fetched=0 line verb last=""
  # Progress: every 25th package fetched, and one line each time debootstrap moves to a new kind of work
  # (Extracting, Unpacking, Configuring …); errors and warnings in full.
  if ! as_root debootstrap --variant=minbase bookworm "$dir" http://deb.debian.org/debian 2>&1 |
    while IFS= read -r line; do
      n=$((n + 1))
      case "$line" in
        E:*|W:*) printf '    [%4d] %s\n' "$n" "$line" ;;
        "I: Validating"*) ;;
        "I: Retrieving"*)
          fetched=$((fetched + 1))
          if [ $((fetched % 25)) = 1 ]; then printf '    [%4d] %s (package %d)\n' "$n" "$line" "$fetched"; fi
          last=Retrieving ;;
        I:*)
          verb=${line#I: }; verb=${verb%% *}
          if [ "$verb" != "$last" ]; then printf '    [%4d] %s\n' "$n" "$line"; last=$verb; fi ;;
      esac
    done; then
    fail "debootstrap failed (see the lines above)" "check that http://deb.debian.org is reachable, then run setup again"
  fi
  [ -x "$dir/bin/bash" ] || fail "debootstrap did not produce a root filesystem" "see the lines above"
  say "importing the tree as $BASE_IMAGE"
  as_root tar -C "$dir" -c . | docker import - "$BASE_IMAGE" >/dev/null
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
  docker build --build-arg "AGENT_UID=$uid" --build-arg "AGENT_GID=$gid" \
    -t "$tag" -f Dockerfile.sandbox sandbox-image 2>&1 |
    grep -v -e '^DEPRECATED' -e 'Install the buildx' -e 'docs.docker.com/go/buildx' -e '^ *$' || true
  image_exists "$tag" || fail "building the sandbox image failed (see above)" \
    "check that containers reach Debian's package mirror (apt-get in Dockerfile.sandbox), then run setup again"
  record sandbox-image "built $tag" "$t0"
}
