#!/bin/sh
# One-shot job: the default namespace and the search attributes operators filter by in the Web UI.
# Run by docker-compose.yml (temporalio/admin-tools) and by `npm run rehearse` (the temporal CLI that
# scripts/provision-temporal.sh builds); the CLI reads TEMPORAL_ADDRESS. Safe to re-run. It waits for
# each step to take effect (a new namespace reaches the server's caches only after some seconds), and
# fails the job, and with it the deploy, unless all five attributes exist in the end.
set -eu
temporal operator namespace describe --namespace default >/dev/null 2>&1 ||
  temporal operator namespace create --namespace default --retention 30d >/dev/null
tries=0
until temporal operator namespace describe --namespace default >/dev/null 2>&1; do
  tries=$((tries + 1)); [ "$tries" -le 60 ] || { echo "register: namespace default not visible after 60 s" >&2; exit 1; }
  sleep 1
done
for pair in BusinessId=Keyword Livemode=Bool PaymentStatus=Keyword AmountInCents=Int EvidenceDueBy=Datetime; do
  name="${pair%%=*}" tries=0
  until temporal operator search-attribute list --namespace default 2>/dev/null | grep -qw "$name"; do
    tries=$((tries + 1)); [ "$tries" -le 30 ] || { echo "register: search attribute $name could not be created" >&2; exit 1; }
    temporal operator search-attribute create --namespace default --name "$name" --type "${pair#*=}" >/dev/null 2>&1 || sleep 1
  done
done
echo "register: namespace default with search attributes BusinessId, Livemode, PaymentStatus, AmountInCents, EvidenceDueBy"
