"""Schemathesis hooks for `npm run fuzz` (loaded through SCHEMATHESIS_HOOKS by scripts/fuzz.ts)."""
import json
import os
import re
import threading
import uuid

import requests

import schemathesis

VALID_KEY = re.compile(r"^[\x20-\x7e]{1,200}$")


def unique_idempotency_key(case):
    """Give each request its own Idempotency-Key.

    Keys are per business and shared by every POST, so a fuzzer that draws the key "0" twice is repeating
    a request, and the API rightly answers with the first answer (or 400 for another body). That hides the
    operation behind it and, after a delete, hands back an id that is gone. A key the document accepts
    gets a unique suffix and stays valid; a malformed key is sent as drawn, to be refused.
    """
    # A coverage case about a header (a missing Authorization, a malformed key) is sent exactly as drawn.
    data = getattr(getattr(getattr(case, "meta", None), "phase", None), "data", None)
    if getattr(data, "parameter_location", None) == "header":
        return
    key = (case.headers or {}).get("Idempotency-Key")
    if isinstance(key, str) and VALID_KEY.match(key):
        case.headers["Idempotency-Key"] = f"{key}.{uuid.uuid4().hex}"


PHASES = ["examples", "coverage", "fuzzing", "stateful"]


def phase_of(case):
    return str(getattr(getattr(getattr(case, "meta", None), "phase", None), "name", ""))


class Rotation:
    """The next seeded record of a kind, in turn (FUZZ_ROTATE, written by scripts/fuzz/seed.ts `rotations`).

    A record the run spends (a pending session once paid, a paid session once refunded) is named by the
    fuzzer's draws again and again; a request that names any seeded one of its kind gets the next instead,
    so the valid cases meet fresh records. Each phase has a share of its own: the coverage phase sends a
    few hundred cases, and would otherwise leave the fuzzing phase none unspent. An id the fuzzer made
    up, or took from an answer, is left alone.
    """

    def __init__(self, spec):
        self.location = spec["location"]
        self.name = spec["name"]
        self.values = spec["values"]
        self.shares = {phase: self.values[i :: len(PHASES)] or self.values for i, phase in enumerate(PHASES)}
        # The document's example names a record of the kind too: the coverage phase sends it as the valid value.
        self.known = set(self.values) | set(spec.get("examples", []))
        self.taken = {}
        self.lock = threading.Lock()

    def take(self, phase):
        share = self.shares.get(phase, self.values)
        with self.lock:
            n = self.taken.get(phase, 0)
            self.taken[phase] = n + 1
            return share[n % len(share)]

    def names_seeded(self, value):
        return isinstance(value, str) and value in self.known

    def apply(self, case):
        phase = phase_of(case)
        if self.location == "path":
            params = case.path_parameters or {}
            if self.names_seeded(params.get(self.name)):
                params[self.name] = self.take(phase)
        elif isinstance(case.body, dict) and self.names_seeded(case.body.get(self.name)):
            case.body[self.name] = self.take(phase)


class CreatedEndpoints:
    """The endpoints the run created, oldest first: what the fuzzer's deletes delete.

    A business may have 16 endpoints, and the run seeds twelve. The fuzzer's deletes draw their ids at
    random (no phase but the stateful one takes ids from answers, so that a seed draws the same cases on
    a busy machine as on an idle one), and a phase sends its creates in a row: without this, each create
    after the fourth is refused. So the run keeps at most KEEP of the endpoints it created, deleting the
    oldest past that itself (housekeeping, as a test tears down, not a case), and a delete that names an
    id the run did not create deletes the oldest one it did, while there is one. The seeded endpoints are
    never deleted: the pings and recoveries need them. In the stateful phase both stand aside: it creates
    an endpoint and follows the document's links to it.
    """

    KEEP = 2

    def __init__(self):
        self.ids = []
        self.lock = threading.Lock()

    def created(self, response):
        try:
            endpoint_id = response.json()["data"]["endpoint"]["id"]
        except (ValueError, KeyError, TypeError):
            return
        with self.lock:
            self.ids.append(endpoint_id)
            surplus = self.ids[: max(0, len(self.ids) - self.KEEP)]
            del self.ids[: len(surplus)]
        request = response.request
        for old in surplus:
            # REQUESTS_CA_BUNDLE (set by scripts/fuzz.ts) verifies the service's certificate.
            requests.delete(f"{request.url.rstrip('/')}/{old}", headers={"Authorization": request.headers["Authorization"]}, timeout=30)

    def apply(self, case):
        params = case.path_parameters or {}
        with self.lock:
            if not self.ids or params.get("id") in self.ids:
                return
            params["id"] = self.ids.pop(0)


CREATED_ENDPOINTS = CreatedEndpoints()

ROTATIONS = {label: Rotation(spec) for label, spec in json.loads(os.environ.get("FUZZ_ROTATE", "{}")).items()}


@schemathesis.hook
def before_call(context, case, **kwargs):
    unique_idempotency_key(case)
    rotation = ROTATIONS.get(case.operation.label)
    if rotation is not None:
        rotation.apply(case)
    if case.operation.label == "DELETE /webhooks/{id}" and phase_of(case) != "stateful":
        CREATED_ENDPOINTS.apply(case)


@schemathesis.hook
def after_call(context, case, response):
    if case.operation.label == "POST /webhooks" and response.status_code == 201 and phase_of(case) != "stateful":
        CREATED_ENDPOINTS.created(response)
