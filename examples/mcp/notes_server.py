"""A small MCP server over stdio, Python's standard library only: the
tool server of examples/plan_agent.sns.

It offers one tool, `lookup(topic)`, which answers from a few notes. The
topic "flaky" fails on its first call and answers on the next (a server
having a bad moment); a topic it has no note on always fails.
"""

import json
import sys

NOTES = {
    "pausing": "agents pause mid-statement and resume later",
    "flaky": "a retried call can succeed",
    "state": "sense start saves a paused agent to a state file",
}
calls = {}


def reply(msg_id, result=None, error=None):
    message = {"jsonrpc": "2.0", "id": msg_id}
    if error is None:
        message["result"] = result
    else:
        message["error"] = {"code": -32000, "message": error}
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def lookup(topic):
    calls[topic] = calls.get(topic, 0) + 1
    if topic == "flaky" and calls[topic] == 1:
        return None, "the notes service is busy, try again"
    if topic not in NOTES:
        return None, f"no note on '{topic}'"
    return NOTES[topic], None


for line in sys.stdin:
    request = json.loads(line)
    method, msg_id = request.get("method"), request.get("id")
    if msg_id is None:
        continue  # a notification (notifications/initialized)
    if method == "initialize":
        reply(msg_id, {
            "protocolVersion": "2025-06-18",
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "notes", "version": "1.0"},
        })
    elif method == "tools/list":
        reply(msg_id, {"tools": [{
            "name": "lookup",
            "description": "The team's note on a topic",
            "inputSchema": {
                "type": "object",
                "properties": {"topic": {"type": "string"}},
                "required": ["topic"],
            },
        }]})
    elif method == "tools/call":
        params = request.get("params", {})
        text, error = lookup(params.get("arguments", {}).get("topic", ""))
        if error is None:
            reply(msg_id, {"content": [{"type": "text", "text": text}]})
        else:
            reply(msg_id, {"content": [{"type": "text", "text": error}], "isError": True})
    else:
        reply(msg_id, error=f"unknown method {method}")
