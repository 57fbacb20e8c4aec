#!/usr/bin/env bash
# Issue 15, item 3, design (a) (a cached per-lineage ext4 image): the facts the design rests on, measured on a
# real tree before building it. Run as root with the engine up:
#   bash bench/support/restore-cache-probe.sh TREE [RUNS]
# TREE is a host directory (e.g. /var/cache/mnemara-corpus/axios-1.7.9). Prints medians (ms) of RUNS (default 3)
# and two yes/no answers:
#   - whether a private copy keeps every inode number and ctime (so a listing stored with the cache entry can be
#     compared with the copy's listing field for field), and whether find on the host (the image mounted
#     read-only after the container is gone) prints the same records as find inside the sandbox;
#   - whether the store's filesystem can reflink (then the private copy costs no data blocks).
# Parts of (a): the private sparse copy; loop attach + container start; the in-sandbox listing (the change
# baseline, and the check against the stored listing); the host-side listing of the closed image (what a
# close-time check of the image against the snapshot taken from it would read).
# Then the other place an image could be cached from: the sandbox right after today's restore, before the agent
# ran (frozen with fsfreeze on the volume's host mountpoint while it is copied): the copy with the fill's
# writeback, a copy again (nothing dirty), whether the copy lists exactly as the sandbox did (mtime included), and
# e2fsck -n on the copy (a frozen, still-mounted ext4 says "not clean", so its consistency is checked instead).
# DIO=off attaches the loop device without --direct-io (the sandbox attaches it with it, see workspace-disk.ts).
set -euo pipefail
TREE=${1:?usage: restore-cache-probe.sh TREE [RUNS]}
RUNS=${2:-3}
DIO=${DIO:-on}
IMAGE=$(docker images --format '{{.Repository}}:{{.Tag}}' mnemara-sandbox | head -1)
WORK=$(mktemp -d /tmp/mnemara-cache-probe-XXXXXX)
LABEL=mnemara.bench=restore-cache-probe
cleanup() {
  [ -n "${mp:-}" ] && fsfreeze -u "$mp" 2>/dev/null || true
  docker ps -aq --filter "label=$LABEL" | xargs -r docker rm -f -v >/dev/null 2>&1 || true
  umount "$WORK/mnt" 2>/dev/null || true
  for f in "$WORK"/*.img; do for d in $(losetup -j "$f" -O NAME --noheadings 2>/dev/null); do losetup -d "$d" || true; done; done
  rm -rf "$WORK"
}
trap cleanup EXIT
now() { date +%s%3N; }
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : int((a[NR/2]+a[NR/2+1])/2))}'; }
SIZE=$(( $(du -sk "$TREE" | cut -f1) * 1024 * 2 + 256 * 1024 * 1024 ))
FMT='%y %m %i %s %C@ %P\0'
run_on() { docker run -d --label "$LABEL" --network none --read-only --cap-drop ALL -u 1000:1000 --mount "type=volume,dst=/workspace,volume-driver=local,volume-opt=type=ext4,volume-opt=device=$1" "$IMAGE" sleep infinity; }

# The cache image a previous session would leave (untimed), and its listing as the host sees it, mounted read-only.
truncate -s "$SIZE" "$WORK/cache.img"
mkfs.ext4 -q -F -m 0 -O ^has_journal -E root_owner=1000:1000,lazy_itable_init=1 "$WORK/cache.img"
debugfs -w -R "rmdir lost+found" "$WORK/cache.img" >/dev/null 2>&1
mkdir "$WORK/mnt" && mount -o loop "$WORK/cache.img" "$WORK/mnt"
tar -C "$TREE" -c . | tar -x -C "$WORK/mnt" && chown -R 1000:1000 "$WORK/mnt" && umount "$WORK/mnt"

copy=(); start=(); inlist=(); hostlist=(); same=yes
for i in $(seq "$RUNS"); do
  t=$(now); cp --sparse=always "$WORK/cache.img" "$WORK/a$i.img"; copy+=($(( $(now) - t )))
  t=$(now); dev=$(losetup --find --show --direct-io="$DIO" "$WORK/a$i.img"); c=$(run_on "$dev"); start+=($(( $(now) - t )))
  t=$(now); docker exec "$c" bash -c "cd /workspace && find . -printf '$FMT'" > "$WORK/in.lst"; inlist+=($(( $(now) - t )))
  docker rm -f -v "$c" >/dev/null
  t=$(now); mount -o ro,nosuid,nodev,noexec "$dev" "$WORK/mnt"; (cd "$WORK/mnt" && find . -printf "$FMT") > "$WORK/host.lst"; umount "$WORK/mnt"; hostlist+=($(( $(now) - t )))
  losetup -d "$dev"
  mount -o ro,loop "$WORK/cache.img" "$WORK/mnt"; (cd "$WORK/mnt" && find . -printf "$FMT") > "$WORK/orig.lst"; umount "$WORK/mnt"
  cmp -s "$WORK/in.lst" "$WORK/host.lst" && cmp -s "$WORK/in.lst" "$WORK/orig.lst" || same=no
  rm -f "$WORK/a$i.img"
done
truncate -s "$SIZE" "$WORK/f.img"
mkfs.ext4 -q -F -m 0 -O ^has_journal -E root_owner=1000:1000,lazy_itable_init=1 "$WORK/f.img"
debugfs -w -R "rmdir lost+found" "$WORK/f.img" >/dev/null 2>&1
dev=$(losetup --find --show --direct-io="$DIO" "$WORK/f.img"); c=$(run_on "$dev")
t=$(now); tar -C "$TREE" -c . | docker exec -i "$c" tar -x -p --no-same-owner --delay-directory-restore -f - -C /workspace; fill=$(( $(now) - t ))
MTFMT='%y %m %i %s %C@ %T@ %U:%G %l %P\0'
docker exec "$c" bash -c "cd /workspace && find . -printf '$MTFMT'" > "$WORK/f-in.lst"
mp=$(docker inspect -f '{{range .Mounts}}{{if eq .Destination "/workspace"}}{{.Source}}{{end}}{{end}}' "$c")
t=$(now); fsfreeze -f "$mp"; cp --sparse=always "$WORK/f.img" "$WORK/f1.img"; fsfreeze -u "$mp"; freeze1=$(( $(now) - t ))
t=$(now); fsfreeze -f "$mp"; cp --sparse=always "$WORK/f.img" "$WORK/f2.img"; fsfreeze -u "$mp"; freeze2=$(( $(now) - t ))
mount -o ro,loop "$WORK/f1.img" "$WORK/mnt"; (cd "$WORK/mnt" && find . -printf "$MTFMT") > "$WORK/f-copy.lst"; umount "$WORK/mnt"
fsame=no; cmp -s "$WORK/f-in.lst" "$WORK/f-copy.lst" && fsame=yes
t=$(now); fsck=problems; e2fsck -fn "$WORK/f1.img" >/dev/null 2>&1 && fsck=clean; fsckms=$(( $(now) - t ))
docker rm -f -v "$c" >/dev/null; losetup -d "$dev"
reflink=no
cp --reflink=always "$WORK/cache.img" "$WORK/r.img" 2>/dev/null && reflink=yes
rm -f "$WORK/r.img"
echo "tree $TREE ($(du -sh "$TREE" | cut -f1), $(find "$TREE" | wc -l) entries), image $(du -sh "$WORK/cache.img" | cut -f1) allocated of $((SIZE / 1048576)) MiB, loop direct-io $DIO, medians of $RUNS, ms"
echo "private sparse copy (cp --sparse=always):              $(printf '%s\n' "${copy[@]}" | median)"
echo "loop attach + container start on the copy:             $(printf '%s\n' "${start[@]}" | median)"
echo "listing inside the sandbox (find -printf, to a file):  $(printf '%s\n' "${inlist[@]}" | median)"
echo "closed image: host read-only mount + listing + umount: $(printf '%s\n' "${hostlist[@]}" | median)"
echo "copy keeps inodes and ctimes; host find == sandbox find: $same"
echo "store filesystem can reflink:                          $reflink"
echo "after-restore cache: today's fill through the tar stream: $fill"
echo "  fsfreeze + copy + thaw, first (with the fill's writeback): $freeze1"
echo "  fsfreeze + copy + thaw, again:                          $freeze2"
echo "  the copy lists as the sandbox did (mtime, owner, link targets too): $fsame"
echo "  e2fsck -fn on the copy: $fsck, $fsckms ms"
