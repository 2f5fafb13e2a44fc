#!/usr/bin/env bash
# Finds or builds Temporal's binaries from the package registries only, caching them outside the clone
# (keyed by version) so a second run on the same machine is instant. Prints shell `export` lines:
#   TEMPORAL_CLI_PATH          the `temporal` CLI (dev server with SQLite and the Web UI)
#   TEMPORAL_TEST_SERVER_PATH  a wrapper that execs Temporal's Java time-skipping test server
#   TEMPORAL_SERVER_PATH, TEMPORAL_SQL_TOOL_PATH, TEMPORAL_SCHEMA_DIR   (target `server`) the real server
#                              (go.temporal.io/server), its schema tool and its PostgreSQL schema, for
#                              `npm run rehearse`
#   TEMPORAL_UI_SERVER_PATH    (target `ui`) the Web UI server (github.com/temporalio/ui-server)
# Usage: eval "$(bash scripts/provision-temporal.sh [cli] [test-server] [server] [ui])"
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
cache="${PAYMENTS_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/payments-service}"
cli_version="${TEMPORAL_CLI_VERSION:-1.5.1}"
test_server_version="${TEMPORAL_TEST_SERVER_VERSION:-1.38.0}"
server_version="${TEMPORAL_SERVER_VERSION:-1.29.1}"
# Newer ui-server tags need a newer Go, or dependency versions the module proxy does not serve.
ui_version="${TEMPORAL_UI_VERSION:-2.55.0}"
want="${*:-cli test-server}"
log() { echo "provision-temporal: $*" >&2; }

provision_cli() {
  if [ -n "${TEMPORAL_CLI_PATH:-}" ] && [ -x "$TEMPORAL_CLI_PATH" ]; then echo "$TEMPORAL_CLI_PATH"; return; fi
  if command -v temporal >/dev/null 2>&1; then command -v temporal; return; fi
  local dir="$cache/temporal-cli-$cli_version"
  if [ ! -x "$dir/temporal" ]; then
    if ! command -v go >/dev/null 2>&1; then
      log "no Go toolchain and no temporal on PATH; the SDK will download the CLI itself"; return
    fi
    # v1.5.1 is the newest tag without a `replace` directive, so plain `go install` works.
    # It is pure Go, so CGO is off to keep the build independent of the C toolchain.
    log "building temporal CLI v$cli_version with Go (a few minutes, once per machine)"
    mkdir -p "$dir"
    CGO_ENABLED=0 GOBIN="$dir" GOFLAGS=-buildvcs=false \
      go install "github.com/temporalio/cli/cmd/temporal@v$cli_version" >&2
  fi
  echo "$dir/temporal"
}

provision_test_server() {
  if [ -n "${TEMPORAL_TEST_SERVER_PATH:-}" ] && [ -x "$TEMPORAL_TEST_SERVER_PATH" ]; then echo "$TEMPORAL_TEST_SERVER_PATH"; return; fi
  local dir="$cache/temporal-test-server-$test_server_version"
  if [ ! -x "$dir/temporal-test-server" ]; then
    if ! command -v mvn >/dev/null 2>&1 || ! command -v java >/dev/null 2>&1; then
      log "no Maven/Java; the SDK will download the test server itself"; return
    fi
    log "fetching temporal-test-server $test_server_version and its class path from Maven Central (once per machine)"
    rm -rf "$dir.tmp" && mkdir -p "$dir.tmp/lib"
    mvn -q -B -f "$here/tools/temporal-test-server/pom.xml" dependency:copy-dependencies \
      -DtestServerVersion="$test_server_version" -DincludeScope=runtime -DoutputDirectory="$dir.tmp/lib" >&2
    # The SDK kills only its direct child, so the wrapper must exec java. The JIT and GC flags and a
    # class-data-sharing archive (below) make the JVM accept connections well inside the SDK's 5 s
    # start-up window on a busy 2-core machine (measured: 2.6 s without the archive, 1.3 s with it).
    cat >"$dir.tmp/temporal-test-server" <<WRAP
#!/bin/sh
exec java -XX:SharedArchiveFile="$dir/cds.jsa" -Xshare:auto -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xss512k -cp "$dir/lib/*" io.temporal.testserver.TestServer "\$@"
WRAP
    chmod +x "$dir.tmp/temporal-test-server"
    rm -rf "$dir" && mv "$dir.tmp" "$dir"
  fi
  if [ ! -f "$dir/cds.jsa" ]; then
    # Record the classes a start-up loads once; later JVMs map them instead of loading them again.
    local port=$((20000 + RANDOM % 20000))
    java -XX:ArchiveClassesAtExit="$dir/cds.jsa" -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -cp "$dir/lib/*" \
      io.temporal.testserver.TestServer "$port" >/dev/null 2>&1 &
    local pid=$!
    for _ in $(seq 1 100); do (echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done
    sleep 1
    kill -TERM "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  fi
  echo "$dir/temporal-test-server"
}

# Builds Go `packages` into `dir` (through dir.tmp, so an interrupted build is never taken as done).
go_build() {
  local dir="$1"; shift
  if ! command -v go >/dev/null 2>&1; then log "no Go toolchain: cannot build $*"; exit 1; fi
  log "building $* with Go (about 6 minutes on 2 cores, once per machine)"
  rm -rf "$dir.tmp" && mkdir -p "$dir.tmp"
  CGO_ENABLED=0 GOBIN="$dir.tmp" GOFLAGS=-buildvcs=false go install "$@" >&2
}

provision_server() {
  local dir="$cache/temporal-server-$server_version"
  if [ ! -x "$dir/server" ] || [ ! -x "$dir/sql" ] || [ ! -d "$dir/schema/temporal" ]; then
    [ -x "$dir.tmp/server" ] && [ -x "$dir.tmp/sql" ] ||
      go_build "$dir" "go.temporal.io/server/cmd/server@v$server_version" "go.temporal.io/server/cmd/tools/sql@v$server_version"
    # The schema the tool applies ships in the module's source, which `go install` left in the module cache.
    local src; src="$(go env GOMODCACHE)/go.temporal.io/server@v$server_version/schema/postgresql/v12"
    rm -rf "$dir.tmp/schema" && cp -r "$src" "$dir.tmp/schema" && chmod -R u+w "$dir.tmp/schema"
    rm -rf "$dir" && mv "$dir.tmp" "$dir"
  fi
  echo "export TEMPORAL_SERVER_PATH='$dir/server' TEMPORAL_SQL_TOOL_PATH='$dir/sql' TEMPORAL_SCHEMA_DIR='$dir/schema'"
}

provision_ui() {
  local dir="$cache/temporal-ui-$ui_version"
  if [ ! -x "$dir/server" ]; then
    [ -x "$dir.tmp/server" ] || go_build "$dir" "github.com/temporalio/ui-server/v2/cmd/server@v$ui_version"
    rm -rf "$dir" && mv "$dir.tmp" "$dir"
  fi
  echo "export TEMPORAL_UI_SERVER_PATH='$dir/server'"
}

for what in $want; do
  case "$what" in
    cli) p="$(provision_cli)"; [ -n "$p" ] && echo "export TEMPORAL_CLI_PATH='$p'" ;;
    test-server) p="$(provision_test_server)"; [ -n "$p" ] && echo "export TEMPORAL_TEST_SERVER_PATH='$p'" ;;
    server) provision_server ;;
    ui) provision_ui ;;
    *) log "unknown tool $what"; exit 2 ;;
  esac
done
