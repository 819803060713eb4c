"""A misbehaving MCP server for tests/mcp_servers.rs (Python standard library
only): it initializes and lists one tool like any server, then misbehaves.

    python3 unruly_server.py flood PROGRESS_FILE
        Once it has listed its tools, sends without pause answers to
        ids nobody asked for, pings and notifications, and never answers a
        `tools/call`. PROGRESS_FILE holds the number of bytes it has managed
        to write so far (a client that stops reading must hold it up). It
        stops flooding after FLOOD_CAP bytes, so a client that buffers
        everything cannot take the machine down with it.

    python3 unruly_server.py spawn PROGRESS_FILE
        Starts a child process (`sleep`) when initialized and writes the
        child's pid to PROGRESS_FILE; exits when its stdin closes, leaving
        the child running. Closing the connection must end the child too.
"""

import json
import os
import subprocess
import sys
import threading

FLOOD_CAP = 256 * 1024 * 1024
PAD = "x" * 4096

mode, progress = sys.argv[1], sys.argv[2]
out = sys.stdout.buffer
lock = threading.Lock()
written = 0


def send(message):
    global written
    line = (json.dumps(message) + "\n").encode()
    with lock:
        out.write(line)
        out.flush()
        written += len(line)


def record(text):
    with open(progress + ".tmp", "w") as f:
        f.write(text)
    # Atomic, so the test never reads half a number.
    os.replace(progress + ".tmp", progress)


def flood():
    n = 0
    while written < FLOOD_CAP:
        n += 1
        send({"jsonrpc": "2.0", "id": 1000000 + n, "result": {"pad": PAD}})
        send({"jsonrpc": "2.0", "id": "ping-%d" % n, "method": "ping"})
        send({"jsonrpc": "2.0", "method": "notifications/message",
              "params": {"level": "info", "data": PAD}})
        if n % 16 == 0:
            record(str(written))
    record(str(written))


record("0")
for raw in sys.stdin:
    msg = json.loads(raw)
    method = msg.get("method")
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": msg["id"], "result": {
            "protocolVersion": msg["params"]["protocolVersion"],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "unruly", "version": "1"}}})
    elif method == "notifications/initialized" and mode == "spawn":
        child = subprocess.Popen(["sleep", "300"])
        record(str(child.pid))
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": msg["id"], "result": {"tools": [{
            "name": "wait", "description": "Never answers",
            "inputSchema": {"type": "object", "properties": {}}}]}})
        if mode == "flood":
            threading.Thread(target=flood, daemon=True).start()
    # tools/call and answers to our pings: no reply.
