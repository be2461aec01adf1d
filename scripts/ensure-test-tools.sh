#!/bin/sh
# Runs before `npm test` (the "pretest" script): makes sure the system programs that the tests of
# clients we did not write need are installed — /usr/bin/chromium (the browser EventSource tests,
# driven by playwright-core), python3 (the standard-library client test), curl (the curl example's
# test) and redis-server (the Redis store and multi-instance tests start their own, on a free port). Missing ones are installed from the Debian packages with apt-get (through sudo when not
# root); when that is not possible it exits non-zero with a message saying what to install by hand.
set -eu

missing=""
[ -x /usr/bin/chromium ] || missing="$missing chromium"
command -v python3 >/dev/null 2>&1 || missing="$missing python3"
command -v curl >/dev/null 2>&1 || missing="$missing curl"
has_redis() { command -v redis-server >/dev/null 2>&1 || [ -x /usr/bin/redis-server ]; }
has_redis || missing="$missing redis-server"
# pandas, for the rollout-export reader tests. Debian's python3-pandas lands in /usr/bin/python3's
# site-packages; a python3 earlier on PATH (pyenv) may not see it, so either having pandas will do
# (the tests look for pandas in both).
has_pandas() { /usr/bin/python3 -c 'import pandas; pandas.read_json' >/dev/null 2>&1 || python3 -c 'import pandas; pandas.read_json' >/dev/null 2>&1; }
has_pandas || missing="$missing python3-pandas"

if [ -z "$missing" ]; then
  exit 0
fi

fail() {
  echo "ensure-test-tools: $1" >&2
  echo "ensure-test-tools: install by hand (Debian/Ubuntu: apt-get install -y$missing), then run the tests again." >&2
  exit 1
}

command -v apt-get >/dev/null 2>&1 || fail "missing:$missing, and apt-get is not available on this machine."

if [ "$(id -u)" -eq 0 ]; then
  SUDO=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  SUDO="sudo -n"
else
  fail "missing:$missing, and installing needs root: run as root, or give this user password-less sudo."
fi

echo "ensure-test-tools: installing the Debian package(s)$missing with apt-get."
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q || fail "apt-get update failed (no network, or no package mirror reachable)."
# shellcheck disable=SC2086 # $missing is a list of package names
$SUDO apt-get install -y -q --no-install-recommends $missing || fail "apt-get install failed (see the apt-get output above)."

[ -x /usr/bin/chromium ] || fail "the chromium package installed, but /usr/bin/chromium is still missing (another distribution layout?)."
command -v python3 >/dev/null 2>&1 || fail "python3 is still missing after apt-get install."
command -v curl >/dev/null 2>&1 || fail "curl is still missing after apt-get install."
has_redis || fail "redis-server is still missing after apt-get install."
has_pandas || fail "python3-pandas installed, but neither /usr/bin/python3 nor python3 imports pandas."
echo "ensure-test-tools: installed$missing."
