"""`memcli import`: the memory and instruction files a project already has, into staging (user
docs: docs/import.md). `import` is a Python keyword, hence the package's name.

The files are read as document sources (memcli/agents/documents/: each block an entry with its
line numbers); their new or changed blocks go through the extract pipeline's pieces (redaction,
extract's chunker, the model gateway and its structured output) into staging files whose Sources
memcli attaches, then `memcli consolidate` as for sessions. The files are never written.

    plan.py       per document: the blocks not imported yet, chunked
    prompt.py     memcli/prompts/import-*.md and the messages for one chunk
    attribute.py  which lines each item the model returned came from (memcli decides, by words)
    ledger.py     which blocks were imported (fingerprints), and a killed run's unfinished chunks
    run.py        the command: discover or take PATHS, plan, call, write staging, record
    report.py     the summary and the dry run
"""
