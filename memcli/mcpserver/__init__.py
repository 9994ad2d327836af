"""`memcli mcp`: the Model Context Protocol server (`server`) and what its tools do (`tools`)."""
