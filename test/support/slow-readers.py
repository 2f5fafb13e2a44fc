"""
Clients that send a request and then read its answer at a trickle, or not at all, each with a tiny
receive window and small segments, as a phone on a poor link has: SO_RCVBUF and TCP_MAXSEG are set before
connecting. On loopback the server's kernel otherwise grows the connection's send buffer to megabytes at
once (its segments being 64 KB) and takes a whole answer off the server's hands; a peer's small segments
keep that buffer to about 120 KB. Node has no way to set either option, hence Python. Used by
test/http/slow-readers.test.ts.

Argument: a JSON object {host, port, servername, ca, path, key, clients, rcvbuf, mss, trickle, seconds}.
The first `trickle` clients read one byte a second (at most one TLS record reaches the client each
time), the others read nothing. Prints {"ports": [...]} (each client's local port) once every request is
out, then, after `seconds` or once every trickling client saw its connection end, one JSON line per
client: {client, port, trickle, bytes, ended_ms} (ended_ms: when the connection stopped being open, from
the client's request, as its kernel tells it: a reset, a close, an error; null if it stayed open).
"""
import json
import socket
import ssl
import struct
import sys
import time

opts = json.loads(sys.argv[1])
context = ssl.create_default_context(cafile=opts["ca"])
request = (
    f"GET {opts['path']} HTTP/1.1\r\nHost: {opts['servername']}:{opts['port']}\r\n"
    f"Authorization: Bearer {opts['key']}\r\nAccept: application/json\r\n\r\n"
).encode()

clients = []
for i in range(opts["clients"]):
    raw = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, opts["rcvbuf"])
    raw.setsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG, opts["mss"])
    raw.connect((opts["host"], opts["port"]))
    tls = context.wrap_socket(raw, server_hostname=opts["servername"])
    tls.sendall(request)
    tls.setblocking(False)
    port = tls.getsockname()[1]
    clients.append({"client": i, "port": port, "socket": tls, "trickle": i < opts["trickle"], "bytes": 0, "sent": time.monotonic(), "ended_ms": None})
print(json.dumps({"ports": [c["port"] for c in clients]}), flush=True)

deadline = time.monotonic() + opts["seconds"]
ESTABLISHED = 1


def end(c):
    c["ended_ms"] = round((time.monotonic() - c["sent"]) * 1000)


def still_open(sock):
    """The kernel's word, which needs no read: a pending error (a reset) or a state past ESTABLISHED."""
    if sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) != 0:
        return False
    return struct.unpack("B", sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 1))[0] == ESTABLISHED


while time.monotonic() < deadline and any(c["ended_ms"] is None for c in clients):
    for c in clients:
        if c["ended_ms"] is not None:
            continue
        try:
            if not still_open(c["socket"]):
                end(c)
                continue
            if c["trickle"]:
                c["bytes"] += len(c["socket"].recv(1))
        except ssl.SSLWantReadError:
            pass
        except (ConnectionError, ssl.SSLError, OSError):
            end(c)
    time.sleep(1)

for c in clients:
    print(json.dumps({k: c[k] for k in ("client", "port", "trickle", "bytes", "ended_ms")}), flush=True)
