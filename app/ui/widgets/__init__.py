"""Widgets specific to memdesk."""
