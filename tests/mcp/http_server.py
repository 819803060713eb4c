"""A Streamable HTTP MCP server (standard library only) for tests/mcp_remote.rs.

It checks what the transport requires of a client and records every request
(method, headers, body) as one JSON line in LOG:

- POST only to /mcp, with `Accept` naming both application/json and
  text/event-stream; `Authorization: Bearer $FAKE_MCP_TOKEN` when that
  variable is set (else 401);
- after `initialize`, the `Mcp-Session-Id` it gave and
  `MCP-Protocol-Version: 2025-06-18` on every request (else 400).

`initialize` is answered with a JSON body; every other request with an SSE
stream that first sends a notification and a ping (whose answer, POSTed
by the client, is recorded) and then the answer. Tools: `add` (a + b) and
`flood` (never answers; sends notifications every 20 ms until the client
hangs up). MODE `expire` answers the first `tools/call` with 404, as a
server does once a session has ended.

Usage: http_server.py LOG [MODE]; prints the port it listens on.
"""

import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOG = sys.argv[1]
MODE = sys.argv[2] if len(sys.argv) > 2 else "ok"
TOKEN = os.environ.get("FAKE_MCP_TOKEN")
LOCK = threading.Lock()
SESSIONS = {}  # id -> number of tools/call seen
COUNTER = [0]

TOOLS = [
    {"name": "add", "description": "Adds two numbers",
     "inputSchema": {"type": "object", "properties": {
         "a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]}},
    {"name": "flood", "description": "Never answers",
     "inputSchema": {"type": "object", "properties": {}}},
]


def record(entry):
    with LOCK, open(LOG, "a") as f:
        f.write(json.dumps(entry) + "\n")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send_json(self, status, body, headers=()):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def event(self, message):
        self.wfile.write(("event: message\ndata: " + json.dumps(message) + "\n\n").encode())
        self.wfile.flush()

    def do_DELETE(self):
        record({"http": "DELETE", "headers": dict(self.headers)})
        with LOCK:
            SESSIONS.pop(self.headers.get("Mcp-Session-Id"), None)
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        msg = json.loads(self.rfile.read(length) or b"null")
        record({"http": "POST", "headers": dict(self.headers), "body": msg})
        accept = self.headers.get("Accept", "")
        if "application/json" not in accept or "text/event-stream" not in accept:
            return self.send_json(400, {"error": {"message": "bad Accept: " + accept}})
        if TOKEN and self.headers.get("Authorization") != "Bearer " + TOKEN:
            return self.send_json(401, {"error": {"message": "bad token"}})
        method = msg.get("method")
        if method == "initialize":
            with LOCK:
                COUNTER[0] += 1
                sid = "session-%d" % COUNTER[0]
                SESSIONS[sid] = 0
            return self.send_json(200, {"jsonrpc": "2.0", "id": msg["id"], "result": {
                "protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                "serverInfo": {"name": "fake-http", "version": "1"}}},
                [("Mcp-Session-Id", sid)])
        sid = self.headers.get("Mcp-Session-Id")
        with LOCK:
            known = sid in SESSIONS
        if not known:
            return self.send_json(404, {"error": {"message": "no such session"}})
        if self.headers.get("MCP-Protocol-Version") != "2025-06-18":
            return self.send_json(400, {"error": {"message": "no MCP-Protocol-Version"}})
        if "id" not in msg or method is None:
            # A notification, or the client's answer to our ping.
            self.send_response(202)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if method == "tools/call":
            with LOCK:
                SESSIONS[sid] += 1
                first = COUNTER[0] == 1 and SESSIONS[sid] == 1
            if MODE == "expire" and first:
                with LOCK:
                    SESSIONS.pop(sid, None)
                return self.send_json(404, {"error": {"message": "session expired"}})
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(b": priming comment\n\n")
        self.event({"jsonrpc": "2.0", "method": "notifications/message",
                    "params": {"level": "info", "data": "working"}})
        self.event({"jsonrpc": "2.0", "id": "srv-ping", "method": "ping"})
        self.event({"jsonrpc": "2.0", "id": 987654, "result": {}})  # not ours
        if method == "tools/list":
            return self.event({"jsonrpc": "2.0", "id": msg["id"], "result": {"tools": TOOLS}})
        if method == "tools/call":
            name = msg["params"]["name"]
            args = msg["params"].get("arguments", {})
            if name == "add":
                total = args.get("a", 0) + args.get("b", 0)
                return self.event({"jsonrpc": "2.0", "id": msg["id"], "result": {
                    "content": [{"type": "text", "text": str(total)}]}})
            try:
                while True:
                    self.event({"jsonrpc": "2.0", "method": "notifications/progress",
                                "params": {"progressToken": 1, "progress": time.time()}})
                    time.sleep(0.02)
            except OSError:
                return
        self.event({"jsonrpc": "2.0", "id": msg["id"],
                    "error": {"code": -32601, "message": "no method " + str(method)}})


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
print(server.server_address[1], flush=True)
server.serve_forever()
