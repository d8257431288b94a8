"""The storage floor: the schema, the writer thread and the queries, so that SQL has one home (the modules
elsewhere that still hold some are listed in tests/server/test_server_layers.py, to move here)."""
