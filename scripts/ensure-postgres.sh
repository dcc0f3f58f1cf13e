#!/usr/bin/env bash
# Starts a throwaway PostgreSQL cluster on a free loopback port for the storage and flow suites.
# Installs Debian's postgresql package when the server binaries are missing (needs root).
# Prints `export TEST_DATABASE_URL=...` and `export UNIT_PG_DIR=...` for the caller to eval.
# Stop it with: scripts/ensure-postgres.sh stop "$UNIT_PG_DIR"
set -euo pipefail

find_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1; }

if [ "${1:-}" = "stop" ]; then
  dir="${2:?data folder}"
  bin=$(find_bin)
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$bin/pg_ctl" -D "$dir/data" -m fast stop >&2 || true
  else "$bin/pg_ctl" -D "$dir/data" -m fast stop >&2 || true; fi
  rm -rf "$dir"
  exit 0
fi

bin=$(find_bin)
if [ -z "$bin" ] || [ ! -x "$bin/initdb" ]; then
  echo "PostgreSQL server not found: installing Debian's postgresql package" >&2
  if [ "$(id -u)" != 0 ]; then echo "need root to install postgresql" >&2; exit 1; fi
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql) >&2
  bin=$(find_bin)
fi

port=$(node -e "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
dir=$(mktemp -d /tmp/unit-pg-XXXXXX)
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
if [ "$(id -u)" = 0 ]; then chown postgres "$dir"; fi
chmod 700 "$dir"
as_pg "$bin/initdb" -D "$dir/data" -A trust -U postgres >/dev/null
as_pg "$bin/pg_ctl" -D "$dir/data" -l "$dir/log" -w \
  -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off -c synchronous_commit=off" start >&2
as_pg "$bin/createdb" -h 127.0.0.1 -p "$port" -U postgres unit_test
echo "export TEST_DATABASE_URL=postgres://postgres@127.0.0.1:$port/unit_test"
echo "export UNIT_PG_DIR=$dir"
