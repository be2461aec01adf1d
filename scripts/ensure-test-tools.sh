#!/bin/sh
# Makes sure /usr/bin/chromium exists, so the browser EventSource test (test/clients/) can run:
# installs the Debian package "chromium" with apt-get when it is missing (through sudo when not root).
# Exits 0 when Chromium is there afterwards, non-zero with a message saying what to do otherwise.
set -eu

CHROMIUM=/usr/bin/chromium

if [ -x "$CHROMIUM" ]; then
  echo "ensure-chromium: $CHROMIUM is present ($("$CHROMIUM" --version 2>/dev/null || echo 'version unknown'))."
  exit 0
fi

fail() {
  echo "ensure-chromium: $1" >&2
  echo "ensure-chromium: install it by hand (Debian/Ubuntu: apt-get install -y chromium), then run the tests again." >&2
  exit 1
}

command -v apt-get >/dev/null 2>&1 || fail "$CHROMIUM is missing and apt-get is not available on this machine."

if [ "$(id -u)" -eq 0 ]; then
  SUDO=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  SUDO="sudo -n"
else
  fail "$CHROMIUM is missing and installing it needs root: run as root, or give this user password-less sudo."
fi

echo "ensure-chromium: $CHROMIUM is missing; installing the Debian package chromium with apt-get."
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q || fail "apt-get update failed (no network, or no package mirror reachable)."
$SUDO apt-get install -y -q --no-install-recommends chromium || fail "apt-get install chromium failed (see the apt-get output above)."

[ -x "$CHROMIUM" ] || fail "the chromium package installed, but $CHROMIUM is still missing (another distribution layout?)."
echo "ensure-chromium: installed $("$CHROMIUM" --version 2>/dev/null || echo chromium)."
