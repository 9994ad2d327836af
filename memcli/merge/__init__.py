"""The git merge driver for record files (`memcli merge-driver %O %A %B %P`).

Lean on purpose: git runs it once per conflicting file, so nothing here imports pydantic or the
Linter; it reads records with PyYAML and `memcli.recordtext` only.
"""
