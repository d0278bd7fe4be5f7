"""memdesk's doors for people and agents: the command line, the MCP server and
its HTTP guard, and the Textual desk. They drive the engine only through its
public face, ``memdesk`` itself (a test checks: tests/test_import_graph.py)."""
