"""An MCP server built on the `mcp` package from PyPI, for tests/mcp_servers.rs.

Run as `python py_server.py` (stdio transport). Its tools exercise what the
Sense client must handle: plain results, a tool that reports an error, and
a tool that takes too long.
"""

import time

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

server = MCPServer("pytools")


@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@server.tool()
def shout(text: str) -> str:
    """Upper-case a text."""
    return text.upper()


@server.tool()
def fail(reason: str) -> str:
    """Always fails with the given reason."""
    raise ToolError(reason)


@server.tool()
def sleepy(seconds: float) -> str:
    """Sleeps, then answers."""
    time.sleep(seconds)
    return "awake"


if __name__ == "__main__":
    server.run()
