#!/usr/bin/env bash
# Issue 15, item 3: what a restore from a lineage head this machine restored recently could cost, measured for
# the two designs before building either, next to today's restore. Run as root with the engine up:
#   bash bench/support/restore-designs.sh TREE [RUNS]
# TREE is a host directory (e.g. /var/cache/mnemara-corpus/axios-1.7.9). Prints medians (ms) of RUNS (default 3).
#
# today  : container with an empty loop-ext4 /workspace (the quota disk), then the snapshot's gzip layer
#          decompressed and streamed in through `docker exec -i tar -x` (what restoreWorkspace does), then
#          a `find` listing (the change baseline).
# (a)    : a cached per-lineage ext4 image that already holds the tree: copied sparse (copy-on-write for the
#          session: concurrent sessions never share it), attached to a loop device, mounted as /workspace; then
#          the same `find` listing, which is also the cheap check that the cache still matches (compared with
#          the listing stored with it). Bringing it up to the head would add only the newer layers.
# (b)    : the snapshot layer as an image layer on top of the sandbox image (`docker build` with ADD of the
#          gzip layer, once per head; later sessions from that head pay only the container start), container
#          with an anonymous /workspace volume that Docker fills from the image (NoCopy false), then `find`.
set -euo pipefail
TREE=${1:?usage: restore-designs.sh TREE [RUNS]}
RUNS=${2:-3}
IMAGE=$(docker images --format '{{.Repository}}:{{.Tag}}' mnemara-sandbox | head -1)
WORK=$(mktemp -d /tmp/mnemara-restore-designs-XXXXXX)
LABEL=mnemara.bench=restore-designs
cleanup() {
  docker ps -aq --filter "label=$LABEL" | xargs -r docker rm -f -v >/dev/null 2>&1 || true
  docker images -q "mnemara-bench-layer" | xargs -r docker rmi -f >/dev/null 2>&1 || true
  for d in $(losetup -j "$WORK/cache.img" -O NAME --noheadings 2>/dev/null); do losetup -d "$d" || true; done
  umount "$WORK/mnt" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
now() { date +%s%3N; }
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : int((a[NR/2]+a[NR/2+1])/2))}'; }
SIZE=$(( $(du -sk "$TREE" | cut -f1) * 1024 * 2 + 256 * 1024 * 1024 ))
newdisk() { truncate -s "$SIZE" "$1"; mkfs.ext4 -q -F -m 0 -O ^has_journal -E root_owner=1000:1000,lazy_itable_init=1 "$1"; debugfs -w -R "rmdir lost+found" "$1" >/dev/null 2>&1; }
listing() { docker exec "$1" bash -c 'cd /workspace && find . -printf "%y %m %i %s %C@ %P\0" | wc -c' >/dev/null; }
run_on() { docker run -d --label "$LABEL" --network none --read-only --cap-drop ALL -u 1000:1000 --mount "type=volume,dst=/workspace,volume-driver=local,volume-opt=type=ext4,volume-opt=device=$1" "$IMAGE" sleep infinity; }

# The gzip layer (what a snapshot stores) and the cached image (what a previous session left), set up untimed.
tar -C "$TREE" -c . | gzip -1 > "$WORK/layer.tgz"
newdisk "$WORK/cache.img"
mkdir "$WORK/mnt" && mount -o loop "$WORK/cache.img" "$WORK/mnt" && tar -C "$TREE" -c . | tar -x -C "$WORK/mnt" && chown -R 1000:1000 "$WORK/mnt" && umount "$WORK/mnt"

today=(); a=(); bfirst=(); b=()
for i in $(seq "$RUNS"); do
  t=$(now); newdisk "$WORK/t$i.img"; dev=$(losetup --find --show "$WORK/t$i.img"); c=$(run_on "$dev")
  gzip -dc "$WORK/layer.tgz" | docker exec -i "$c" tar -x -C /workspace; listing "$c"; today+=($(( $(now) - t )))
  docker rm -f -v "$c" >/dev/null; losetup -d "$dev"; rm -f "$WORK/t$i.img"

  t=$(now); cp --sparse=always "$WORK/cache.img" "$WORK/a$i.img"; dev=$(losetup --find --show "$WORK/a$i.img"); c=$(run_on "$dev")
  listing "$c"; a+=($(( $(now) - t )))
  docker rm -f -v "$c" >/dev/null; losetup -d "$dev"; rm -f "$WORK/a$i.img"

  t=$(now); mkdir -p "$WORK/ctx$i" && ln "$WORK/layer.tgz" "$WORK/ctx$i/layer.tgz"
  printf 'FROM %s\nADD --chown=1000:1000 layer.tgz /workspace/\n' "$IMAGE" > "$WORK/ctx$i/Dockerfile"
  docker build -q -t "mnemara-bench-layer:$i" "$WORK/ctx$i" >/dev/null; bfirst+=($(( $(now) - t )))
  t=$(now); c=$(docker run -d --label "$LABEL" --network none --read-only --cap-drop ALL -u 1000:1000 -v /workspace "mnemara-bench-layer:$i" sleep infinity)
  listing "$c"; b+=($(( $(now) - t )))
  docker rm -f -v "$c" >/dev/null; docker rmi -f "mnemara-bench-layer:$i" >/dev/null
done
echo "tree $TREE ($(du -sh "$TREE" | cut -f1), $(find "$TREE" | wc -l) entries), medians of $RUNS, ms"
echo "today: empty quota disk + gzip layer through docker exec tar -x + listing: $(printf '%s\n' "${today[@]}" | median)"
echo "(a) cached ext4 image: sparse copy + loop + container + listing:        $(printf '%s\n' "${a[@]}" | median)"
echo "(b) layer as image layer: docker build once per head:                  $(printf '%s\n' "${bfirst[@]}" | median)"
echo "(b) then each session: container (volume filled from the image) + listing: $(printf '%s\n' "${b[@]}" | median)"
