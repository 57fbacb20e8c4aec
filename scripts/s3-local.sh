#!/usr/bin/env bash
# A local S3-compatible server for the tests: Ceph's RADOS Gateway on a one-node cluster (one mon, no mgr,
# one BlueStore OSD on a sparse file, radosgw beast on 127.0.0.1:7480, pools of size 1), without cephadm.
#
#   bash scripts/s3-local.sh up     # idempotent: installs Debian's packages when absent, starts what is not
#                                   # running, prints `export` lines on stdout (eval them); progress on stderr
#   bash scripts/s3-local.sh down   # stops the daemons by pid (state is kept: the next `up` is a warm start)
#   bash scripts/s3-local.sh purge  # down, then removes the state directory
#
# State lives in $MNEMARA_S3_STATE (default /var/lib/mnemara-s3), never in the clone. Every `ceph` CLI call is
# wrapped in `timeout`: against a dead mon it blocks for 300 s.
set -euo pipefail

STATE=${MNEMARA_S3_STATE:-/var/lib/mnemara-s3}
PORT=${MNEMARA_S3_PORT:-7480}
BUCKET=${MNEMARA_S3_BUCKET_NAME:-mnemara-test}
CONF=$STATE/ceph.conf
LOG=$STATE/log/s3-local.log
T=${MNEMARA_S3_CEPH_TIMEOUT:-20}

say() { echo "s3-local: $*" >&2; }
die() { say "error: $*"; say "see $LOG and $STATE/log/"; exit 3; }
ceph_() { timeout "$T" ceph -c "$CONF" "$@"; }

# A pid is alive only if /proc says so and it is not a zombie (a SIGKILLed daemon stays Z for ~1.5 s).
alive() {
  local pid=$1 st
  [[ -n $pid && -r /proc/$pid/stat ]] || return 1
  st=$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null) || return 1
  [[ $st != Z && $st != X ]]
}
pid_of() { [[ -f $STATE/run/$1.pid ]] && cat "$STATE/run/$1.pid" || true; }

install_packages() {
  if command -v ceph-mon >/dev/null && command -v ceph-osd >/dev/null && command -v radosgw >/dev/null; then return; fi
  say "installing ceph-mon ceph-osd radosgw from Debian (log: $LOG)"
  export DEBIAN_FRONTEND=noninteractive
  if ! apt-get install -y -q --no-install-recommends ceph-mon ceph-osd radosgw ceph-common uuid-runtime >>"$LOG" 2>&1; then
    apt-get update -q >>"$LOG" 2>&1 || die "apt-get update failed"
    apt-get install -y -q --no-install-recommends ceph-mon ceph-osd radosgw ceph-common uuid-runtime >>"$LOG" 2>&1 \
      || die "apt-get install of the ceph packages failed"
  fi
}

write_conf() {
  local fsid=$1
  cat >"$CONF" <<EOF
[global]
fsid = $fsid
mon_host = [v2:127.0.0.1:3300,v1:127.0.0.1:6789]
mon_initial_members = a
auth_cluster_required = cephx
auth_service_required = cephx
auth_client_required = cephx
auth_allow_insecure_global_id_reclaim = false
keyring = $STATE/keyring.\$name
run_dir = $STATE/run
pid_file = $STATE/run/\$name.pid
admin_socket = $STATE/run/\$cluster-\$name.asok
log_file = $STATE/log/\$cluster-\$name.log
osd_pool_default_size = 1
osd_pool_default_min_size = 1
osd_pool_default_pg_num = 8
osd_pool_default_pgp_num = 8
mon_allow_pool_size_one = true
mon_warn_on_pool_no_redundancy = false
mon_data_avail_warn = 1
# A test server on a nearly full disk: the mon's own guard (5 % free) stopped a CI run whose tests need far less.
mon_data_avail_crit = 1
mon_max_pg_per_osd = 1000
osd_crush_chooseleaf_type = 0
ms_bind_ipv6 = false

[mon.a]
mon_data = $STATE/mon/ceph-a

[osd.0]
osd_data = $STATE/osd/ceph-0
osd_objectstore = bluestore
bluestore_block_create = true
bluestore_block_size = 10737418240
osd_memory_target = 536870912

[client.rgw.a]
rgw_frontends = beast endpoint=127.0.0.1:$PORT
rgw_dns_name = 127.0.0.1
rgw_enable_usage_log = false
EOF
}

bootstrap() {
  say "creating a one-node cluster in $STATE"
  local fsid osd_uuid
  down
  fsid=$(uuidgen)
  rm -rf "$STATE/mon" "$STATE/osd" "$STATE/run" "$STATE"/keyring.* "$STATE/monmap" "$STATE/s3.env"
  mkdir -p "$STATE/mon/ceph-a" "$STATE/osd/ceph-0" "$STATE/run"
  write_conf "$fsid"
  ceph-authtool --create-keyring "$STATE/keyring.mon.a" --gen-key -n mon. --cap mon 'allow *' >>"$LOG" 2>&1
  ceph-authtool --create-keyring "$STATE/keyring.client.admin" --gen-key -n client.admin \
    --cap mon 'allow *' --cap osd 'allow *' --cap mgr 'allow *' --cap mds 'allow *' >>"$LOG" 2>&1
  ceph-authtool "$STATE/keyring.mon.a" --import-keyring "$STATE/keyring.client.admin" >>"$LOG" 2>&1
  monmaptool --create --addv a '[v2:127.0.0.1:3300,v1:127.0.0.1:6789]' --fsid "$fsid" "$STATE/monmap" >>"$LOG" 2>&1
  ceph-mon -c "$CONF" --mkfs -i a --monmap "$STATE/monmap" --keyring "$STATE/keyring.mon.a" >>"$LOG" 2>&1 || die "ceph-mon --mkfs failed"
  start_mon
  osd_uuid=$(uuidgen)
  local id
  id=$(ceph_ osd new "$osd_uuid" 2>>"$LOG") || die "ceph osd new failed"
  [[ $id == 0 ]] || die "expected osd id 0, got '$id'"
  ceph-osd -c "$CONF" -i 0 --mkfs --no-mon-config --osd-uuid "$osd_uuid" --mkkey --keyring "$STATE/osd/ceph-0/keyring" >>"$LOG" 2>&1 || die "ceph-osd --mkfs failed"
  ceph_ auth add osd.0 osd 'allow *' mon 'allow profile osd' mgr 'allow profile osd' -i "$STATE/osd/ceph-0/keyring" >>"$LOG" 2>&1 || die "ceph auth add osd.0 failed"
  ceph_ auth get-or-create client.rgw.a mon 'allow rw' osd 'allow rwx' -o "$STATE/keyring.client.rgw.a" >>"$LOG" 2>&1 || die "rgw key failed"
  touch "$STATE/bootstrapped"
}

start_mon() {
  alive "$(pid_of mon.a)" && return
  ceph-mon -c "$CONF" -i a >>"$LOG" 2>&1 || die "ceph-mon did not start"
  for _ in $(seq 1 100); do ceph_ mon stat >/dev/null 2>&1 && return; sleep 0.2; done
  die "ceph-mon does not answer"
}

start_osd() {
  alive "$(pid_of osd.0)" || ceph-osd -c "$CONF" -i 0 --keyring "$STATE/osd/ceph-0/keyring" >>"$LOG" 2>&1 || die "ceph-osd did not start"
  for _ in $(seq 1 150); do
    [[ $(ceph_ osd stat -f json 2>/dev/null | grep -o '"num_up_osds":[0-9]*' | cut -d: -f2) == 1 ]] && return
    sleep 0.2
  done
  die "osd.0 does not come up"
}

s3_ok() { curl -s -o /dev/null -m 2 -w '%{http_code}' "http://127.0.0.1:$PORT/" | grep -q '^[24]'; }

start_rgw() {
  alive "$(pid_of client.rgw.a)" || radosgw -c "$CONF" -n client.rgw.a >>"$LOG" 2>&1 || die "radosgw did not start"
  for _ in $(seq 1 300); do s3_ok && return; sleep 0.2; done
  die "radosgw does not answer on 127.0.0.1:$PORT"
}

ensure_user_and_bucket() {
  if [[ ! -f $STATE/s3.env ]]; then
    local key secret
    key=MNEMARA$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' | head -c 13 | tr a-f A-F)
    secret=$(head -c 30 /dev/urandom | base64 | tr -d '/+=\n')
    timeout "$T" radosgw-admin -c "$CONF" user create --uid=mnemara --display-name=mnemara \
      --access-key="$key" --secret-key="$secret" >>"$LOG" 2>&1 || die "radosgw-admin user create failed"
    printf 'KEY=%s\nSECRET=%s\n' "$key" "$secret" >"$STATE/s3.env.tmp"
    mv "$STATE/s3.env.tmp" "$STATE/s3.env"
  fi
  # shellcheck disable=SC1091
  source "$STATE/s3.env"
  local code
  for _ in $(seq 1 50); do
    code=$(curl -s -o "$STATE/log/bucket.out" -w '%{http_code}' -m 30 -X PUT "http://127.0.0.1:$PORT/$BUCKET" \
      --aws-sigv4 "aws:amz:us-east-1:s3" --user "$KEY:$SECRET" -H 'x-amz-content-sha256: UNSIGNED-PAYLOAD') || code=000
    # 200 = created, 409 BucketAlreadyOwnedByYou = there already.
    if [[ $code == 200 || $code == 409 ]]; then return; fi
    sleep 0.3
  done
  die "cannot create bucket $BUCKET (HTTP $code: $(head -c 300 "$STATE/log/bucket.out"))"
}

up() {
  local t0=$SECONDS cold=warm
  mkdir -p "$STATE/log" "$STATE/run"
  install_packages
  if [[ ! -f $STATE/bootstrapped ]]; then cold=cold; bootstrap; else start_mon; fi
  start_osd
  start_rgw
  ensure_user_and_bucket
  say "RGW up on http://127.0.0.1:$PORT ($cold start, $((SECONDS - t0)) s)"
  cat <<EOF
export AWS_ENDPOINT_URL=http://127.0.0.1:$PORT
export AWS_ACCESS_KEY_ID=$KEY
export AWS_SECRET_ACCESS_KEY=$SECRET
export AWS_REGION=us-east-1
export MNEMARA_S3_BUCKET=$BUCKET
EOF
}

stop_one() {
  local name=$1 pid
  pid=$(pid_of "$name")
  alive "$pid" || return 0
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 1 100); do alive "$pid" || return 0; sleep 0.1; done
  say "$name ($pid) ignores SIGTERM; killing"
  kill -9 "$pid" 2>/dev/null || true
  for _ in $(seq 1 50); do alive "$pid" || return 0; sleep 0.1; done
}

down() {
  [[ -d $STATE/run ]] || return 0
  stop_one client.rgw.a
  stop_one osd.0
  stop_one mon.a
  say "stopped"
}

case ${1:-} in
  up) up ;;
  down) down ;;
  purge) down; rm -rf "$STATE"; say "removed $STATE" ;;
  *) echo "usage: $0 up|down|purge" >&2; exit 2 ;;
esac
