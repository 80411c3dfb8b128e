#!/usr/bin/env bash
# Shared preparation of `npm start` and `npm test` on a fresh Debian machine with Node 20:
# installs pnpm, the Debian packages the platform runs, and the workspace dependencies.
set -euo pipefail
cd "$(dirname "$0")/.."

# redis-server: the private Redis; pocketsphinx: the reference ASR engine (flite and the testdata
# recordings are the engine tests' speech; flac decodes the LibriSpeech speakers of the diarization tests)
DEBIAN_PACKAGES=(redis-server libpocketsphinx3 pocketsphinx-en-us flite pocketsphinx-testdata flac)

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else "$@"; fi; }

missing=()
for p in "${DEBIAN_PACKAGES[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing Debian packages: ${missing[*]}"
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if ! command -v pnpm >/dev/null 2>&1; then
  echo "installing pnpm"
  npm install -g pnpm@10 >/dev/null 2>&1 || as_root npm install -g pnpm@10 >/dev/null
fi

if [ "${CI:-}" = "true" ]; then
  pnpm install --frozen-lockfile --reporter=silent
else
  pnpm install --reporter=silent
fi
