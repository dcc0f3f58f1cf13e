#!/usr/bin/env bash
# The browser journeys use Debian's Chromium; nothing ever downloads a browser build.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then exit 0; fi
if [ "$(id -u)" != 0 ]; then echo "Chromium missing: run as root, or apt-get install chromium" >&2; exit 1; fi
echo "Installing Debian's chromium package" >&2
apt-get update -qq >&2
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-dejavu-core >&2
