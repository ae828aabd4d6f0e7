#!/usr/bin/env bash
# Finds Chromium for the e2e tests, installing Debian's package when it is missing.
# Prints the binary's path on stdout. Honours CHROMIUM_PATH.
set -euo pipefail
if [[ -n "${CHROMIUM_PATH:-}" && -x "${CHROMIUM_PATH}" ]]; then echo "$CHROMIUM_PATH"; exit 0; fi
for c in /usr/bin/chromium /usr/bin/chromium-browser /usr/bin/google-chrome; do
  if [[ -x "$c" ]]; then echo "$c"; exit 0; fi
done
echo "Chromium not found: installing Debian's chromium package…" >&2
SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >&2
$SUDO apt-get install -y -qq chromium >&2
if [[ -x /usr/bin/chromium ]]; then echo /usr/bin/chromium; exit 0; fi
echo "Could not install Chromium. Install it yourself (apt-get install chromium) or set CHROMIUM_PATH." >&2
exit 1
