"""Schemathesis hooks for `npm run fuzz` (loaded through SCHEMATHESIS_HOOKS by scripts/fuzz.ts)."""
import re
import uuid

import schemathesis

VALID_KEY = re.compile(r"^[\x20-\x7e]{1,200}$")


@schemathesis.hook
def before_call(context, case, **kwargs):
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
