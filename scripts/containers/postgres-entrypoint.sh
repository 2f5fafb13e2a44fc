#!/bin/sh
# The postgres stand-in's entrypoint: the part of the official image's docker-entrypoint.sh that compose
# relies on. On an empty PGDATA: initdb with POSTGRES_USER as the superuser and POSTGRES_PASSWORD as its
# password (scram-sha-256 over TCP, trust on the socket), then POSTGRES_DB (default: the user's name)
# created. Then the server, as user postgres, on every address, with its socket where Debian's pg_isready
# looks (/var/run/postgresql). No /docker-entrypoint-initdb.d, no POSTGRES_INITDB_ARGS, no _FILE variants.
set -eu
: "${POSTGRES_USER:=postgres}" "${POSTGRES_DB:=$POSTGRES_USER}"
: "${POSTGRES_PASSWORD:?the postgres stand-in needs POSTGRES_PASSWORD}"
mkdir -p "$PGDATA" /var/run/postgresql
if [ "$(id -u)" = 0 ]; then
  chown -R postgres:postgres "$PGDATA" /var/run/postgresql
  chmod 700 "$PGDATA"
  exec setpriv --reuid=postgres --regid=postgres --init-groups /bin/sh "$0" "$@"
fi
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  pw="$(mktemp)"; printf '%s\n' "$POSTGRES_PASSWORD" >"$pw"
  initdb -D "$PGDATA" --username="$POSTGRES_USER" --pwfile="$pw" --auth-local=trust --auth-host=scram-sha-256 --encoding=UTF8 >/dev/null
  rm -f "$pw"
  echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
  if [ "$POSTGRES_DB" != postgres ]; then
    echo "CREATE DATABASE \"$POSTGRES_DB\";" | postgres --single -D "$PGDATA" -j postgres >/dev/null
  fi
  echo "postgres stand-in: initialised $PGDATA (user $POSTGRES_USER, database $POSTGRES_DB)"
fi
exec postgres -D "$PGDATA" -c listen_addresses='*' -c unix_socket_directories=/var/run/postgresql "$@"
