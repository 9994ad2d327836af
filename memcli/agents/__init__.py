"""Wiring memcli into coding agents: config-file edits, the hooks they run."""
