"""memdesk's user-facing side: the command line (and, later, the Textual app).
It drives the engine in ``core`` through its public API only."""
