#!/usr/bin/env bash
# A throwaway PostgreSQL server for tests and benchmarks: a new cluster in a temporary
# directory, trusted connections on 127.0.0.1 only, a free port, run as an unprivileged user
# when called as root (PostgreSQL refuses to run as root). Nothing touches the system cluster.
#
#   bash scripts/postgres-scratch.sh start   # prints DIR and URL on two lines
#   bash scripts/postgres-scratch.sh restart DIR   # a fast restart, same port
#   bash scripts/postgres-scratch.sh stop DIR
set -euo pipefail

bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
if [ -z "$bindir" ] || [ ! -x "$bindir/initdb" ]; then
  echo "postgres-scratch: PostgreSQL is not installed; run 'bash scripts/install-deps.sh' (Debian's postgresql)" >&2
  exit 1
fi

as_server_user() {
  if [ "$(id -u)" -eq 0 ]; then
    runuser -u nobody -- "$@"
  else
    "$@"
  fi
}

case "${1:-}" in
  start)
    dir=$(mktemp -d "${TMPDIR:-/tmp}/pdfgate-postgres.XXXXXX")
    [ "$(id -u)" -eq 0 ] && chown nobody:nogroup "$dir"
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
    as_server_user "$bindir/initdb" -D "$dir/data" -U pdfgate -A trust -E UTF8 --no-locale >"$dir/initdb.log" 2>&1 \
      || { cat "$dir/initdb.log" >&2; exit 1; }
    # Several gateways and many tests connect at once; fsync stays on: benchmarks compare it with SQLite's.
    # The server must not keep this script's stdout or stderr open: a caller reading them to
    # the end would wait for as long as the server runs.
    as_server_user "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
      -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c max_connections=300" start </dev/null >"$dir/pg_ctl.log" 2>&1 \
      || { cat "$dir/pg_ctl.log" "$dir/server.log" >&2; exit 1; }
    as_server_user "$bindir/createdb" -h 127.0.0.1 -p "$port" -U pdfgate pdfgate
    echo "$dir"
    echo "postgres://pdfgate@127.0.0.1:$port/pdfgate"
    ;;
  restart)
    dir=${2:?usage: postgres-scratch.sh restart DIR}
    as_server_user "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -m fast -w -t 60 restart </dev/null >"$dir/pg_ctl.log" 2>&1 \
      || { cat "$dir/pg_ctl.log" "$dir/server.log" >&2; exit 1; }
    ;;
  stop)
    dir=${2:?usage: postgres-scratch.sh stop DIR}
    as_server_user "$bindir/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
    rm -rf "$dir"
    ;;
  *)
    echo "usage: postgres-scratch.sh start | restart DIR | stop DIR" >&2
    exit 2
    ;;
esac
