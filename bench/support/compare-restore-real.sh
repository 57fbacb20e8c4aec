#!/bin/bash
# Restore of the real tree (scripts/setup/corpus.sh) by two checkouts against `tar -xzf`, alternated, each in a
# process of its own and into a new directory (nothing deleted: see shared/MACHINE-NOTES.md), with the load.
# usage: bench/support/compare-restore-real.sh <baseline checkout> [runs] [tree]
#   baseline: e.g. `git archive <rev> src package.json tsconfig.json | tar -x -C /tmp/base` plus a node_modules link.
set -euo pipefail
BASE=$1; RUNS=${2:-3}; TREE=${3:-/var/cache/mnemara-corpus/axios-1.7.9}
HERE=$(cd "$(dirname "$0")/../.." && pwd)
WORK=$(mktemp -d /tmp/cmp-restore-real-XXXX)
STORE=$WORK/store
ID=$(cd "$HERE" && npx tsx -e "(async () => {
  const { openStore } = await import('./src/snapshot/index.ts');
  const s = await openStore('$STORE');
  console.log((await s.create({ dir: '$TREE' }, { lineage: 'b', kind: 'workspace', parent: null })).id);
})()")
tar -czf "$WORK/tree.tgz" -C "$TREE" .
for i in $(seq "$RUNS"); do
  for k in tar base new; do
    d=$(mktemp -d "$WORK/$k-XXXX")
    case $k in
      tar) /usr/bin/time -f "run$i tar -xzf %e s user %U sys %S" tar -xzf "$WORK/tree.tgz" -C "$d" ;;
      base) (cd "$HERE" && npx tsx bench/support/restore-once.ts "$BASE" "$STORE" "$ID" "$d/out" | sed "s/^/run$i before /") ;;
      new) (cd "$HERE" && npx tsx bench/support/restore-once.ts "$HERE" "$STORE" "$ID" "$d/out" | sed "s/^/run$i after /") ;;
    esac
  done
  uptime | sed 's/.*load/load/'
done
echo "(left in $WORK; remove it when done)"
