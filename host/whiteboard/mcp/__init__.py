"""Desktop apps (MCP, docs/mcp.md): the vault served over the Model Context Protocol's
stdio transport (`server.py`, the only module that loads the SDK), what its tools answer
(`desk.py`), and registering the server with the apps (`apps.py`)."""
