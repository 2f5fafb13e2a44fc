#!/bin/sh
# One-shot job: creates Temporal's two databases on PostgreSQL and brings both schemas to the server's
# version. Run by docker-compose.yml (in temporalio/admin-tools) and by `npm run rehearse` (with the
# temporal-sql-tool built from go.temporal.io/server), so both set up the same way. Safe to re-run:
# `create` and `setup-schema -v 0.0` fail harmlessly on a database already set up; update-schema applies
# only what is missing. Settings: SQL_HOST, SQL_PORT, SQL_USER, SQL_PASSWORD (read by the tool itself),
# TEMPORAL_SCHEMA_DIR (the server's schema/postgresql/v12).
set -eu
export SQL_HOST="${SQL_HOST:-postgres-temporal}" SQL_PORT="${SQL_PORT:-5432}" SQL_USER="${SQL_USER:-temporal}"
schema="${TEMPORAL_SCHEMA_DIR:-/etc/temporal/schema/postgresql/v12}"
for db in temporal temporal_visibility; do
  dir=temporal
  [ "$db" = temporal_visibility ] && dir=visibility
  temporal-sql-tool --plugin postgres12 --db "$db" create-database >/dev/null 2>&1 || true
  temporal-sql-tool --plugin postgres12 --db "$db" setup-schema -v 0.0 >/dev/null 2>&1 || true
  temporal-sql-tool --plugin postgres12 --db "$db" update-schema -d "$schema/$dir/versioned"
done
