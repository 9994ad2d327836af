"""Shared staging through git refs: `memcli staging push` / `pull`, and the release of what a
consolidation used. No server: each machine publishes to a ref of its own on a remote the team
already has, and every update is a push with a lease."""
