#!/usr/bin/env bash
# A throwaway S3 server for tests and benchmarks: a one-node Ceph cluster (one monitor, one OSD
# that keeps its objects in memory) with a RADOS Gateway in front, all of it in a temporary
# directory, on 127.0.0.1 only, on free ports. A real S3 implementation that is not ours, so the
# gateway's S3 client is tested against someone else's reading of the protocol. Nothing under
# /etc/ceph or /var/lib/ceph is read or written: every daemon gets DIR/ceph.conf, and its data,
# logs, admin sockets and pid files are in DIR. Several instances can run at once (their own
# fsid, ports and directory). Ceph's daemons run as root as well as any other user, so unlike
# PostgreSQL they run as whoever calls this.
#
#   bash scripts/s3-scratch.sh start [BUCKET...]   # prints DIR, the endpoint URL, the access key
#                                                  # and the secret key on four lines
#   bash scripts/s3-scratch.sh make-bucket DIR NAME
#   bash scripts/s3-scratch.sh stop-gateway DIR    # only radosgw: an S3 outage, the data kept
#   bash scripts/s3-scratch.sh start-gateway DIR   # radosgw again, same port; waits until it answers
#   bash scripts/s3-scratch.sh stop DIR
#
# Requests are signed with SigV4 for region us-east-1, path-style (http://127.0.0.1:PORT/BUCKET/KEY).
# The logs (DIR/log) are the first place to look when a request fails oddly.
set -euo pipefail

access_key=PDFGATETESTACCESS
secret_key=pdfgate-test-secret

for tool in ceph-mon ceph-osd radosgw radosgw-admin monmaptool ceph curl python3; do
  if ! command -v "$tool" >/dev/null; then
    echo "s3-scratch: $tool is not installed; run 'bash scripts/install-deps.sh' (Debian's ceph-mon, ceph-osd, radosgw, ceph-common)" >&2
    exit 1
  fi
done

# DIR/ceph.conf's paths are double-quoted: Ceph's parser aborts on a byte past ASCII outside
# quotes (a path with 'é'), and ends a value at '#' even inside them unless escaped.
conf_path() {
  local s=$1
  s=${s//\\/\\\\}
  s=${s//\"/\\\"}
  s=${s//\#/\\#}
  s=${s//;/\\;}
  printf '"%s"' "$s"
}

fail() {
  echo "s3-scratch: $*" >&2
  exit 1
}

# The pid of DIR's daemon NAME (mon, osd, rgw) if it still runs. A pid is only taken for that
# daemon when its command line names this instance's ceph.conf: a pid file outlives its process,
# and the pid may have gone to another process since. A zombie counts as gone.
running_pid() {
  local dir=$1 name=$2 pid state
  [ -f "$dir/$name.pid" ] || return 1
  pid=$(cat "$dir/$name.pid")
  [ -n "$pid" ] && [ -r "/proc/$pid/cmdline" ] || return 1
  state=$(sed -n 's/^State:[[:space:]]*\([A-Z]\).*/\1/p' "/proc/$pid/status" 2>/dev/null || true)
  [ "$state" != Z ] || return 1
  tr '\0' '\n' <"/proc/$pid/cmdline" | grep -qxF -- "$dir/ceph.conf" || return 1
  echo "$pid"
}

# Sends SIGNAL to DIR's daemon NAME and waits (at most SECONDS) until it is gone, then SIGKILL.
end_daemon() {
  local dir=$1 name=$2 signal=$3 seconds=$4 pid i
  pid=$(running_pid "$dir" "$name") || { rm -f "$dir/$name.pid"; return 0; }
  kill "-$signal" "$pid" 2>/dev/null || true
  for ((i = 0; i < seconds * 20; i++)); do
    running_pid "$dir" "$name" >/dev/null || break
    sleep 0.05
  done
  if running_pid "$dir" "$name" >/dev/null; then
    kill -KILL "$pid" 2>/dev/null || true
    for ((i = 0; i < 100; i++)); do
      running_pid "$dir" "$name" >/dev/null || break
      sleep 0.05
    done
  fi
  rm -f "$dir/$name.pid"
}

# Starts a daemon in the foreground of a session of its own, its output in DIR/log, its pid in
# DIR/NAME.pid. It must not keep this script's stdout or stderr open: a caller reading them to
# the end would wait for as long as the daemon runs.
launch() {
  local dir=$1 name=$2
  shift 2
  setsid "$@" -f -c "$dir/ceph.conf" </dev/null >>"$dir/log/$name.out" 2>&1 &
  echo $! >"$dir/$name.pid"
  # Not this shell's job any more: no "Killed" line on stderr when `stop` ends it.
  disown $!
}

# Prints the last lines of DIR's logs named in the arguments, for an error message.
show_logs() {
  local dir=$1 f
  shift
  for f in "$@"; do
    [ -s "$dir/log/$f" ] || continue
    echo "--- $dir/log/$f (last lines)" >&2
    tail -n 25 "$dir/log/$f" >&2
  done
}

# The ceph CLI on DIR's cluster, its output in DIR/log/LOG; tried up to five times. Without
# cephx a client can send its first command before it has the monitor map, stamped with a zero
# fsid, and the monitor refuses it ("EPERM: problem getting command descriptions", one call in
# thirty or so on a busy machine); the commands used here can be repeated.
ceph_cli() {
  local dir=$1 log=$2
  shift 2
  for _ in 1 2 3 4 5; do
    timeout 60 ceph -c "$dir/ceph.conf" --connect-timeout 30 "$@" >>"$dir/log/$log" 2>&1 && return 0
    running_pid "$dir" mon >/dev/null || return 1
    sleep 0.2
  done
  return 1
}

endpoint_of() {
  cat "$1/endpoint"
}

# Waits (at most 30 s) until radosgw answers on DIR's endpoint. Fails when it exits, or when
# something else answers there: the port, free when it was chosen, can be taken before radosgw
# binds it (a test's server asking for any free port), and only radosgw's answers carry its
# request id.
wait_for_gateway() {
  local dir=$1 url i headers
  url=$(endpoint_of "$dir")
  for ((i = 0; i < 300; i++)); do
    running_pid "$dir" rgw >/dev/null || return 1
    if headers=$(curl -s -o /dev/null -D - --max-time 2 "$url/" 2>/dev/null); then
      grep -qi '^x-amz-request-id:' <<<"$headers" && return 0
      return 1
    fi
    sleep 0.1
  done
  return 1
}

# A free loopback port (free now; see wait_for_gateway).
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# PUT /NAME, signed as the test user. 200 also when the user already owns the bucket.
make_bucket() {
  local dir=$1 name=$2 url out code
  url=$(endpoint_of "$dir")
  out=$(curl -sS --max-time 30 -o - -w '\n%{http_code}' -X PUT --aws-sigv4 "aws:amz:us-east-1:s3" \
    --user "$access_key:$secret_key" -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" "$url/$name") \
    || fail "creating bucket $name at $url failed: $out"
  code=${out##*$'\n'}
  [ "$code" = 200 ] || fail "creating bucket $name at $url answered $code: ${out%$'\n'*}"
}

# Starts radosgw on DIR's endpoint; with `new-port`, on another free port when that one turns
# out taken (at `start`; `start-gateway` keeps the port the tests know, and retries it).
start_gateway() {
  local dir=$1 attempt port
  running_pid "$dir" rgw >/dev/null && return 0
  for attempt in 1 2 3 4 5; do
    port=$(endpoint_of "$dir")
    port=${port##*:}
    # tcp_nodelay: without it a kept-alive connection's second request waits out Nagle and a
    # delayed ACK (about 40 ms); deployments of radosgw want it too.
    launch "$dir" rgw radosgw -n client.rgw --rgw-frontends "beast endpoint=127.0.0.1:$port tcp_nodelay=1"
    wait_for_gateway "$dir" && return 0
    end_daemon "$dir" rgw KILL 5
    [ "${2:-}" = new-port ] && echo "http://127.0.0.1:$(free_port)" >"$dir/endpoint"
    sleep 0.2
  done
  show_logs "$dir" rgw.out client.rgw.log
  fail "radosgw did not answer at $(endpoint_of "$dir") after 5 tries"
}

# A DIR argument: what `start` printed. Refuses anything else, since `stop` removes it.
instance_dir() {
  local dir=${1:?usage: s3-scratch.sh $2 DIR}
  dir=${dir%/}
  [[ "$dir" == /* ]] || dir=$PWD/$dir
  case "$(basename -- "$dir")" in
    pdfgate-s3.*) ;;
    *) fail "$dir is not a directory that 's3-scratch.sh start' made (pdfgate-s3.XXXXXX)" ;;
  esac
  [ -f "$dir/ceph.conf" ] || [ ! -e "$dir" ] || fail "$dir has no ceph.conf"
  echo "$dir"
}

stop_all() {
  local dir=$1
  # Immediate, like PostgreSQL's -m immediate: the data goes with DIR anyway, and a stopping
  # memstore OSD would first write every object it holds to DIR.
  end_daemon "$dir" rgw KILL 5
  end_daemon "$dir" osd KILL 5
  end_daemon "$dir" mon KILL 5
  rm -rf -- "$dir"
}

case "${1:-}" in
  start)
    shift
    for bucket in "$@"; do
      [[ "$bucket" =~ ^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$ ]] \
        || fail "'$bucket' is not an S3 bucket name (3 to 63 of a-z, 0-9, '.' and '-')"
    done
    dir=$(mktemp -d "${TMPDIR:-/tmp}/pdfgate-s3.XXXXXX")
    dir=$(cd -- "$dir" && pwd)
    # Ceph splits a -c argument at ',' and ';' (a list of files to try), and expands $name and the
    # like in every ceph.conf value, whatever the quoting.
    case "$dir" in
      *'$'* | *,* | *';'* | *$'\n'*)
        rmdir -- "$dir"
        fail "the temporary directory $dir has a '\$', ',', ';' or newline, which Ceph cannot take in a path; set TMPDIR to a plainer one"
        ;;
    esac
    # From here on a failure takes down what was started and removes DIR.
    trap 'status=$?; [ $status -eq 0 ] || stop_all "$dir"; exit $status' EXIT
    trap 'exit 1' INT TERM HUP
    mkdir -p "$dir/log" "$dir/run" "$dir/mon" "$dir/osd" "$dir/rgw" "$dir/crash"
    read -r mon_port rgw_port fsid osd_uuid < <(python3 -c '
import socket, uuid
socks = [socket.socket() for _ in range(2)]
for s in socks:
    s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in socks], uuid.uuid4(), uuid.uuid4())')
    echo "http://127.0.0.1:$rgw_port" >"$dir/endpoint"
    cat >"$dir/ceph.conf" <<EOF
# s3-scratch.sh's cluster: one monitor, one OSD, one radosgw, all on 127.0.0.1, all in this directory.
[global]
fsid = $fsid
# Messenger v1 only: one port for the monitor, nothing to negotiate.
mon host = v1:127.0.0.1:$mon_port
public addr = 127.0.0.1
cluster addr = 127.0.0.1
ms bind msgr2 = false
# No cephx: no keys to make, and no keyring looked for (in /etc/ceph or anywhere).
auth cluster required = none
auth service required = none
auth client required = none
run dir = $(conf_path "$dir/run")
crash dir = $(conf_path "$dir/crash")
log to stderr = false
err to stderr = false
log to syslog = false
# A single monitor: no need to batch its map updates for a second (Ceph's default), which
# otherwise makes every pool radosgw creates and the OSD's boot take a second or two each.
paxos propose interval = 0.05
paxos min wait = 0.01
mon data = $(conf_path "$dir/mon")
# The cluster log ('ceph log last' shows it) stays in the monitor: its file option splits at spaces.
mon cluster log to file = false
# One copy of everything, on the one OSD, without the health warnings that come with it. No
# manager daemon (a hundred MB of Python for nothing here), so no warning for that either.
mon allow pool size one = true
mon warn on pool no redundancy = false
mon mgr mkfs grace = 31536000
mon warn on insecure global id reclaim = false
mon warn on insecure global id reclaim allowed = false
# The monitor stops itself when its disk is 95 % full (a full /tmp would look like an S3 bug).
mon data avail warn = 1
mon data avail crit = 0
osd pool default size = 1
osd pool default min size = 1
# radosgw makes eight pools or so: a few placement groups each keep the OSD small and quick.
osd pool default pg num = 8
osd pool default pgp num = 8
osd pool default pg autoscale mode = off
osd crush chooseleaf type = 0
osd data = $(conf_path "$dir/osd")
# Without cephx the OSD may send its start-up monitor commands (its CRUSH place and device
# class) before it has the monitor map, stamped with a zero fsid: the monitor refuses them
# ('wrong fsid') and the OSD exits, one start in six or so. This script puts it in CRUSH instead
# (see ceph_cli).
osd crush update on start = false
osd class update on start = false
# Objects live in the OSD's memory (nothing written to disk, and gone at stop): this process's
# RSS grows by what is stored. 4 GiB is a cap, not an allocation; enough for a benchmark of a
# few GB (the machine has 24 GiB). Writes fail with "full" past 95 % of it.
osd objectstore = memstore
memstore device bytes = 4294967296

[mon]
log file = $(conf_path "$dir/log/\$name.log")
[osd]
log file = $(conf_path "$dir/log/\$name.log")
[client.rgw]
log file = $(conf_path "$dir/log/\$name.log")
rgw data = $(conf_path "$dir/rgw")
# rgw frontends: on radosgw's command line (start_gateway), which may have to pick another port.
EOF

    monmaptool --create --fsid "$fsid" --addv a "[v1:127.0.0.1:$mon_port]" "$dir/monmap" >"$dir/log/monmaptool.out" 2>&1 \
      || { cat "$dir/log/monmaptool.out" >&2; fail "monmaptool failed"; }
    ceph-mon -c "$dir/ceph.conf" --mkfs -i a --monmap "$dir/monmap" >"$dir/log/mon-mkfs.out" 2>&1 \
      || { show_logs "$dir" mon-mkfs.out mon.a.log; fail "ceph-mon --mkfs failed"; }
    launch "$dir" mon ceph-mon -i a

    # Registers the OSD (osd.0) with the monitor, waiting for it to be up, and places it in CRUSH.
    ceph_cli "$dir" osd-new.out osd new "$osd_uuid" \
      || { show_logs "$dir" osd-new.out mon.out mon.a.log; fail "the monitor did not answer (ceph osd new)"; }
    ceph_cli "$dir" osd-crush.out osd crush add osd.0 1 root=default \
      || { show_logs "$dir" osd-crush.out mon.a.log; fail "ceph osd crush add failed"; }
    ceph-osd -c "$dir/ceph.conf" -i 0 --mkfs --osd-uuid "$osd_uuid" >"$dir/log/osd-mkfs.out" 2>&1 \
      || { show_logs "$dir" osd-mkfs.out osd.0.log; fail "ceph-osd --mkfs failed"; }
    launch "$dir" osd ceph-osd -i 0

    # Makes radosgw's zone, its pools and the user: it waits for the OSD to be up and its placement
    # groups active, and so does radosgw afterwards.
    # Watched, so an OSD that dies at start fails this at once rather than after the minute.
    timeout 60 radosgw-admin -c "$dir/ceph.conf" user create --uid pdfgate --display-name "PDF Gateway tests" \
      --access-key "$access_key" --secret-key "$secret_key" </dev/null >"$dir/log/user-create.out" 2>&1 &
    admin=$!
    while kill -0 "$admin" 2>/dev/null; do
      if ! running_pid "$dir" osd >/dev/null || ! running_pid "$dir" mon >/dev/null; then
        kill "$admin" 2>/dev/null || true
        show_logs "$dir" osd.out osd.0.log mon.out mon.a.log
        fail "the OSD or the monitor exited at start"
      fi
      sleep 0.1
    done
    wait "$admin" || { show_logs "$dir" user-create.out osd.0.log mon.a.log; fail "radosgw-admin user create failed"; }
    start_gateway "$dir" new-port
    for bucket in "$@"; do
      make_bucket "$dir" "$bucket"
    done
    trap - EXIT INT TERM HUP
    echo "$dir"
    endpoint_of "$dir"
    echo "$access_key"
    echo "$secret_key"
    ;;
  make-bucket)
    dir=$(instance_dir "${2:-}" make-bucket)
    name=${3:?usage: s3-scratch.sh make-bucket DIR NAME}
    running_pid "$dir" rgw >/dev/null || fail "radosgw of $dir is not running ('s3-scratch.sh start-gateway DIR')"
    make_bucket "$dir" "$name"
    ;;
  stop-gateway)
    dir=$(instance_dir "${2:-}" stop-gateway)
    end_daemon "$dir" rgw TERM 10
    ;;
  start-gateway)
    dir=$(instance_dir "${2:-}" start-gateway)
    running_pid "$dir" osd >/dev/null && running_pid "$dir" mon >/dev/null \
      || fail "the cluster of $dir is not running (start a new one with 's3-scratch.sh start')"
    start_gateway "$dir"
    ;;
  stop)
    dir=$(instance_dir "${2:-}" stop)
    stop_all "$dir"
    ;;
  *)
    echo "usage: s3-scratch.sh start [BUCKET...] | make-bucket DIR NAME | stop-gateway DIR | start-gateway DIR | stop DIR" >&2
    exit 2
    ;;
esac
