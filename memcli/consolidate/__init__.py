"""Phase 2 (`memcli consolidate`): staging → memory in one locked, all-or-nothing run.

Modules: `run` (the command), `lock` (exclusive lock file), `inputs` (staging + what the model
reads), `agent` (the one conversation: integration, GC, lint repair), `scratch` (the copy the
tools write to, and the change set), `journal` (the journaled apply + crash recovery), `gitops`
(dirty check, the one commit), `message` (counts and the commit message), `history` (run history
for `memcli status`), `output` (what is printed), `prompts` (prompt files).
"""
