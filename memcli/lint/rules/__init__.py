"""Lint rules, one class per rule; the explicit registry is `memcli.lint.registry.RULES`."""
