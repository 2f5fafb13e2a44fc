#!/usr/bin/env bash
# Makes sure Debian's Chromium is at /usr/bin/chromium for the browser tests (test/browser), installing it
# from Debian's archive once per machine. Idempotent: a machine that has it costs one `test -x`.
# As root it runs apt-get itself; as another user it tries `sudo -n` (no password prompt), and otherwise
# says what to run and returns 0, so the tests that need no browser still run (the browser tests then
# fail naming the same command).
set -euo pipefail
CHROMIUM=/usr/bin/chromium
log() { echo "provision-chromium: $*" >&2; }

[ -x "$CHROMIUM" ] && exit 0

if [ "$(id -u)" = 0 ]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  as_root=(sudo -n)
else
  log "the browser tests need Chromium at $CHROMIUM, and only root can install it."
  log "install it once with:  sudo apt-get update && sudo apt-get install -y chromium"
  log "(or run npm test as root, which installs it itself); continuing without it."
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  log "no apt-get here; install Chromium so that $CHROMIUM exists, then run the tests again"
  exit 0
fi

# Two test runs that start together on a fresh machine must not run apt-get side by side: apt's own
# locks do not cover the downloads, and concurrent installs were seen here to fail half-unpacked. The
# second waits on this lock, then finds Chromium installed.
lock=/var/tmp/payments-service-provision-chromium.lock
: >>"$lock" 2>/dev/null || true # another user may own it; reading is enough for flock
exec 9<"$lock"
flock 9
[ -x "$CHROMIUM" ] && exit 0
log "installing Chromium from Debian's archive for the browser tests (once per machine, about a minute)"
apt_get=("${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -qq -o DPkg::Lock::Timeout=300)
"${apt_get[@]}" update >&2
"${apt_get[@]}" install -y chromium >/dev/null
[ -x "$CHROMIUM" ] || { log "apt-get installed chromium, but $CHROMIUM is missing"; exit 1; }
