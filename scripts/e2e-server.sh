#!/usr/bin/env bash
# The server the browser tests run against: the production build on a fresh SQLite file with seed data.
set -euo pipefail
cd "$(dirname "$0")/.."
dir="${E2E_DIR:-./data/e2e}"
rm -rf "$dir"
export DATABASE_URL="file:$dir/sprout.db" SPROUT_DATA_DIR="$dir" NODE_ENV=production NEXT_TELEMETRY_DISABLED=1
node --import tsx scripts/seed.ts
exec node --import tsx server/main.ts
