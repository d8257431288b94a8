"""The transport: wire schemas, shared route helpers, the WebSocket endpoint and the REST routes."""
