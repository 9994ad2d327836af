"""Phase 1: `memcli extract` (spec 2 §2; user docs: docs/extract.md).

    prepare.py  entries → redacted, prioritised parts → chunks under a token budget
    prompt.py   memcli/prompts/extract-*.md, their version, the messages for one chunk
    ledger.py   which spans were extracted, how, and whether their file changed since
    plan.py     per session: what is still to extract
    run.py      the command: concurrency, staging files, ledger, summary (report.py prints)
"""
