#!/usr/bin/env bash
# `npm test`: types, lint, schema/migration agreement, the production build, unit and
# integration tests against real services (SQLite, PostgreSQL, overlayfs, dockerd),
# and browser tests in Debian's Chromium against the production build.
set -euo pipefail
cd "$(dirname "$0")/.."
export NEXT_TELEMETRY_DISABLED=1 CHECKPOINT_DISABLE=1

step() { printf '\n== %s\n' "$*"; }

need_system_package() { # <command path> <debian package> <why>
  [ -x "$1" ] && return 0
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    step "installing $2 ($3)"
    DEBIAN_FRONTEND=noninteractive apt-get install -y "$2" >/dev/null \
      || { apt-get update >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y "$2" >/dev/null; }
  else
    echo "sprout: $3 need $1: install the Debian package '$2' (sudo apt-get install $2)" >&2
    exit 1
  fi
}

if [ ! -d node_modules ]; then step "npm ci"; npm ci --no-audit --no-fund; fi
need_system_package /usr/bin/chromium chromium "the browser tests"

step "typecheck";  npx tsc --noEmit
step "lint";       npx eslint --max-warnings 0 .
step "schema";     node scripts/db-migration.mjs check
step "build";      npx next build >/dev/null
step "unit and integration tests"; npx vitest run
step "browser tests"; npx playwright test
