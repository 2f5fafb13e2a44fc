#!/usr/bin/env bash
# Finds or builds stripe-mock (github.com/stripe/stripe-mock: Stripe's own server that validates each
# request against Stripe's OpenAPI description and answers with its fixtures), from the Go module proxy
# only, cached outside the clone and keyed by version as the Temporal CLI is, so a second run on the
# same machine is instant. The connector's contract tests run against it (docs/acquirer.md).
# Prints one shell `export` line: STRIPE_MOCK_PATH.
# Usage: eval "$(bash scripts/provision-stripe-mock.sh)"
set -euo pipefail
cache="${PAYMENTS_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/payments-service}"
# The version whose OpenAPI description is Stripe's API version the connector pins
# (STRIPE_API_VERSION in src/modules/stripe/stripe.client.ts; a test holds the two equal).
version="${STRIPE_MOCK_VERSION:-0.203.0}"
log() { echo "provision-stripe-mock: $*" >&2; }

if [ -n "${STRIPE_MOCK_PATH:-}" ] && [ -x "$STRIPE_MOCK_PATH" ]; then
  echo "export STRIPE_MOCK_PATH='$STRIPE_MOCK_PATH'"
  exit 0
fi
dir="$cache/stripe-mock-$version"
if [ ! -x "$dir/stripe-mock" ]; then
  if ! command -v go >/dev/null 2>&1; then
    log "no Go toolchain: cannot build stripe-mock v$version (the connector's contract tests need it)"
    exit 1
  fi
  # Pure Go with its fixtures embedded: CGO off keeps the build independent of the C toolchain. Built into
  # dir.tmp first, so an interrupted build is never taken as done.
  log "building stripe-mock v$version with Go (about a minute, once per machine)"
  rm -rf "$dir.tmp" && mkdir -p "$dir.tmp"
  CGO_ENABLED=0 GOBIN="$dir.tmp" GOFLAGS=-buildvcs=false go install "github.com/stripe/stripe-mock@v$version" >&2
  rm -rf "$dir" && mv "$dir.tmp" "$dir"
fi
echo "export STRIPE_MOCK_PATH='$dir/stripe-mock'"
