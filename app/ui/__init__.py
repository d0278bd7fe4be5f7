"""The memdesk terminal app (Textual). Start it with ``memdesk`` (no arguments)."""
