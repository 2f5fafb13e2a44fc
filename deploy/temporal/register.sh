#!/bin/sh
# One-shot job: the default namespace and the search attributes operators filter by in the Web UI.
set -eu
temporal operator namespace describe --namespace default >/dev/null 2>&1 ||
  temporal operator namespace create --namespace default --retention 30d
for pair in BusinessId=Keyword Livemode=Bool PaymentStatus=Keyword AmountInCents=Int; do
  temporal operator search-attribute create --namespace default --name "${pair%%=*}" --type "${pair#*=}" || true
done
