#!/usr/bin/env bash
# Fails when the drizzle table definitions have changed without a generated migration.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(npx drizzle-kit generate --config migrations/drizzle.config.ts 2>&1)
if ! grep -q "No schema changes" <<<"$out"; then
  echo "$out"
  echo "migrations are stale: run 'pnpm migrations:generate' and commit migrations/" >&2
  git checkout -- migrations 2>/dev/null || true
  git clean -fdq migrations 2>/dev/null || true
  exit 1
fi
