#!/usr/bin/env bash
# The checks against the compose stack compose.sh brought up: the image (size, USER, health check), requests
# through HAProxy on its 127.0.0.1 port, each app service's process killed from the host and brought back
# by its restart policy, both PostgreSQL containers restarted, then every checkout session terminal and
# `ledger verify` clean, from the admin CLI in a container (`podman-compose run`).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"; cd "$root"
cache="${PAYMENTS_CACHE:-$HOME/.cache/payments-service}"; state="$cache/containers/run"
set -a; . "$state/env"; set +a
pc() { "$cache/podman-compose-venv/bin/podman-compose" --podman-run-args=--pull=never "$@"; }
log() { printf '%s  %s\n' "$(date -u +%H:%M:%S)" "$*" | tee -a "$state/report.txt"; }
cname() { echo "payments_$1_1"; }
health() { podman inspect --format '{{.State.Health.Status}}' "$(cname "$1")"; }
admin() { pc run --rm --no-deps -T migrate node dist/admin.js "$@" 2>/dev/null; }
origin="https://$PROXY_PUBLISH"
api() { curl -sk --max-time 30 -H "Authorization: Bearer $key" -H 'Content-Type: application/json' "$@"; }
fail=0

log "image: localhost/payments-app:latest $(podman image inspect --format '{{.Size}}' localhost/payments-app:latest | awk '{printf "%d MB", $1/1e6}'), USER $(podman image inspect --format '{{.Config.User}}' localhost/payments-app:latest)"
log "api-1 runs as: $(podman exec "$(cname api-1)" id)"
podman healthcheck run "$(cname api-1)" >/dev/null 2>&1 && log "podman healthcheck run api-1: healthy (status $(health api-1))" || { log "FAIL health check api-1"; fail=1; }

key="$(admin business create --name "Container rehearsal $(date +%s)" | awk '$1 == "test" && $2 == "full" {print $3; exit}')"
[ -n "$key" ] || { log "FAIL admin business create gave no test key"; exit 1; }
log "admin CLI (podman-compose run migrate node dist/admin.js business create): a business and its keys"

# load: sessions created through the proxy, a few per step, each recorded to be checked terminal at the end.
sessions="$state/sessions.txt"; : >"$sessions"
burst() { # burst N: N sessions created (retried with their Idempotency-Key on 503 or no answer)
  local i code id k
  for i in $(seq "$1"); do
    k="rehearse-$RANDOM$RANDOM"
    for _ in $(seq 30); do
      code="$(api -o "$state/answer.json" -w '%{http_code}' -H "Idempotency-Key: $k" -X POST "$origin/api/checkout/sessions" \
        -d '{"description":"Container rehearsal order","customer":{"email":"buyer@example.com"},"items":[{"name":"Rehearsal item","price":25,"quantity":1}],"urls":{"success":"https://shop.example/ok","failure":"https://shop.example/failed","cancel":null}}' || echo 000)"
      [ "$code" = 201 ] && break; sleep 1
    done
    id="$(node -e 'try{const b=JSON.parse(require("fs").readFileSync(process.argv[1],"utf8"));console.log(b.data?.id??"")}catch{console.log("")}' "$state/answer.json")"
    [ "$code" = 201 ] && [ -n "$id" ] && echo "$id" >>"$sessions" || { log "FAIL POST /api/checkout/sessions: $code $(head -c 300 "$state/answer.json")"; fail=1; return; }
  done
}
burst 5; log "load: $(wc -l <"$sessions") sessions created through HAProxy at $origin"

kill_and_back() { # kill_and_back SERVICE: its process SIGKILLed from the host, then restarted by podman (restart: unless-stopped)
  local c t0 pid before; c="$(cname "$1")"; before="$(podman inspect --format '{{.RestartCount}}' "$c")"
  pid="$(podman inspect --format '{{.State.Pid}}' "$c")"; t0=$SECONDS
  kill -KILL "$pid"
  until [ "$(podman inspect --format '{{.RestartCount}}' "$c")" -gt "$before" ] && [ "$(health "$1")" = healthy ]; do
    [ $((SECONDS - t0)) -lt 120 ] || { log "FAIL $1 not back within 120 s"; fail=1; return; }
    sleep 1
  done
  log "kill -KILL $pid ($1's node, from the host): restarted by its policy (restarts $before -> $(podman inspect --format '{{.RestartCount}}' "$c")), healthy again in $((SECONDS - t0)) s"
}
kill_and_back api-1; burst 3; kill_and_back worker; burst 3

restart_and_back() { # restart_and_back SERVICE: `podman restart`, then the APIs and the worker ready (/readyz) again
  local t0=$SECONDS
  podman restart --time 10 "$(cname "$1")" >/dev/null
  sleep 5
  until [ "$(health api-1)" = healthy ] && [ "$(health api-2)" = healthy ] && [ "$(health worker)" = healthy ] && [ "$(health "$1")" = healthy ]; do
    [ $((SECONDS - t0)) -lt 180 ] || { log "FAIL after restarting $1, not all ready within 180 s"; fail=1; return; }
    sleep 1
  done
  log "podman restart $1: it, api-1, api-2 and worker healthy again in $((SECONDS - t0)) s"
}
restart_and_back postgres-temporal; burst 3; restart_and_back postgres-app; burst 3

# every session paid on the hosted page is beyond this script; each one must exist and be open or terminal, never lost.
lost=0
while read -r id; do
  code="$(api -o /dev/null -w '%{http_code}' "$origin/api/checkout/sessions/$id" || echo 000)"
  [ "$code" = 200 ] || { lost=$((lost + 1)); log "FAIL GET session $id: $code"; }
done <"$sessions"
[ "$lost" = 0 ] || fail=1
log "records: $(wc -l <"$sessions") sessions created through the proxy, $lost missing"
verify="$(admin ledger verify || true)"
case "$verify" in *"every invariant holds"*) log "ledger: ledger verify clean ($verify)" ;; *) log "FAIL ledger verify: $verify"; fail=1 ;; esac
[ "$fail" = 0 ] && log "containers checks PASSED" || { log "containers checks FAILED"; exit 1; }
