#!/bin/sh
# One-shot job (temporalio/admin-tools): creates Temporal's databases on PostgreSQL and brings both
# schemas to the image's version. Safe to re-run: `create` fails harmlessly on an existing database.
set -eu
for db in temporal temporal_visibility; do
  dir=temporal
  [ "$db" = temporal_visibility ] && dir=visibility
  temporal-sql-tool --plugin postgres12 --ep postgres-temporal -u temporal -p 5432 --db "$db" create || true
  temporal-sql-tool --plugin postgres12 --ep postgres-temporal -u temporal -p 5432 --db "$db" setup-schema -v 0.0 || true
  temporal-sql-tool --plugin postgres12 --ep postgres-temporal -u temporal -p 5432 --db "$db" \
    update-schema -d "/etc/temporal/schema/postgresql/v12/$dir/versioned"
done
