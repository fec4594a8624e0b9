#!/usr/bin/env bash
# Starts this machine's PostgreSQL cluster (installed but stopped on a new machine),
# makes a login role for the tests, and prints a base URL: postgresql://sprout:sprout@127.0.0.1:<port>/
set -euo pipefail
if ! command -v pg_lsclusters >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    apt-get install -y postgresql >&2 || { apt-get update >&2 && apt-get install -y postgresql >&2; }
  else
    echo "sprout: the tests need PostgreSQL: install it (Debian: sudo apt-get install postgresql)" >&2
    exit 1
  fi
fi
read -r version name port status _ < <(pg_lsclusters -h | head -n 1)
if [ -z "${version:-}" ]; then
  echo "sprout: no PostgreSQL cluster exists: create one with pg_createcluster" >&2
  exit 1
fi
if [ "$status" != "online" ]; then pg_ctlcluster "$version" "$name" start >&2; fi
as_postgres() { if [ "$(id -u)" = 0 ]; then su postgres -c "$1"; else sudo -u postgres sh -c "$1"; fi; }
if ! as_postgres "psql -p $port -tAc \"SELECT 1 FROM pg_roles WHERE rolname='sprout'\"" | grep -q 1; then
  as_postgres "psql -p $port -qc \"CREATE ROLE sprout LOGIN PASSWORD 'sprout' CREATEDB\"" >&2
fi
echo "postgresql://sprout:sprout@127.0.0.1:$port/"
