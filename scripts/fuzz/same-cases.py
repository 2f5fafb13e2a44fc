"""Whether two `npm run fuzz` runs of one seed sent the same requests, in the same order.

Usage: FUZZ_SEED=474 FUZZ_REPORT_DIR=DIR npm run fuzz -- --report junit,har   (twice, into DIR1 and DIR2,
say once with `stress-ng --cpu 2` beside it), then python3 scripts/fuzz/same-cases.py DIR1 DIR2.
What differs from run to run by nature is masked: the ids the run seeded and the service made, the
Idempotency-Key suffix the hooks add, the port, and instants the stateful phase copies from answers.
Exits 1 when the requests differ, printing the first few that do.
"""
import json, glob, re, sys
ID = re.compile(r'\b[a-z]+(_[a-z]+)?_[0-9a-zA-Z_]{16,}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|\.[0-9a-f]{32}\b|:\d{4,5}/')
NOW = re.compile(r'2026-1[12]-\d\dT\d\d(%3A|:)\d\d(%3A|:)\d\d(\.\d+)?Z')
def norm(e):
    r = e['request']
    body = (r.get('postData') or {}).get('text', '')
    return NOW.sub('<now>', ID.sub('<id>', f"{r['method']} {r['url']} {body}"))
def load(d):
    return [norm(e) for e in json.load(open(glob.glob(d + '/har-*.json')[0]))['log']['entries']]
a, b = load(sys.argv[1]), load(sys.argv[2])
print(len(a), len(b))
sa, sb = sorted(a), sorted(b)
print('same requests in the same order:', a == b, '| same multiset:', sa == sb)
diff = [i for i, (x, y) in enumerate(zip(a, b)) if x != y]
print('positions differing:', len(diff))
for i in diff[:5]: print(i, '\n  A', a[i][:300], '\n  B', b[i][:300])
sys.exit(0 if a == b else 1)
