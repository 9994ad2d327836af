"""Read and parse the files a refresh must look at, and make the search postings of the records kept
without them: here, or on every core when they are many.

Reading, hashing, parsing YAML and tokenising text are CPU-bound pure Python, so threads would not
help; a forked helper starts at once with everything imported and takes a share of the files,
reads them itself, and sends what it made back through a pipe in batches as it goes (marshal:
rows are plain tuples). A batch is made step by step, not file by file: every file of it read,
then every one parsed, then every one tokenised, so each step's code and data stay in the CPU's
caches (a 10 000-record build here: ~10% less CPU than reading, parsing and tokenising each file
in turn). Below `MIN_FILES` forking costs more than it saves (a first build, an
upgrade or a bulk checkout go past it; everyday edits never do). The parent alone writes the
database: it stores each batch as it arrives, so storing overlaps reading and parsing instead of
following them. A helper that fails in any way just means the parent does what of its share did
not arrive.
"""

from __future__ import annotations

import marshal
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from memcli import forked

MIN_FILES = 1500  # files to read before a second process pays for itself
MAX_PROCS = 8
BATCH = 200  # rows a helper sends at once: the parent stores each batch while the next is made

# What a refresh learns of one file: (its index in the refresh's list, its content hash or None when
# it could not be read, its row or None when its content is the one kept).
Item = tuple[int, str | None, tuple[Any, ...] | None]
Fetch = Callable[[str], tuple[str, bytes] | None]  # path → (content hash, bytes), None: unreadable


def _rows(files: list[tuple[str, bytes]], postings: bool) -> list[tuple[Any, ...]]:
    """The rows of `files` ((path, bytes) each), with their postings when `postings` asks: every
    file parsed, then every row's postings made."""
    if not files:  # a batch of files whose content is the one kept: the parser stays unloaded
        return []
    from memcli.store.row import FIELDS, read_row  # here: the parser and its models, only for a changed file

    rows = [read_row(rel, data) for rel, data in files]
    if not postings:
        return [(*row, None) for row in rows]
    from memcli.store.postings import postings as make  # here: context fills no postings

    at = {name: i for i, name in enumerate(FIELDS)}
    slug, error, description, body = at["slug"], at["parse_error"], at["description"], at["body"]
    return [(*row, make(row[slug], rel, row[error] is None, row[description], row[body]))
            for (rel, _), row in zip(files, rows, strict=True)]


def procs_for(count: int) -> int:
    if count < MIN_FILES or not forked.can_fork():
        return 1
    return max(1, min(forked.cores(), MAX_PROCS, count // (MIN_FILES // 2)))


def items(paths: list[str], fetch: Fetch, kept: dict[str, str], postings: bool) -> Iterator[list[Item]]:
    """What each file of `paths` holds, read with `fetch` and compared with its `kept` content hash:
    as batches of Items in no set order; every index comes exactly once. The row comes with its
    postings when `postings` asks."""

    def batch(indices: Sequence[int]) -> list[Item]:
        got = [(i, fetch(paths[i])) for i in indices]  # every file of the batch read, then parsed
        changed = [(i, found) for i, found in got if found is not None and kept.get(paths[i]) != found[0]]
        made = _rows([(paths[i], found[1]) for i, found in changed], postings)
        rows = dict(zip((i for i, _ in changed), made, strict=True))
        return [(i, None if found is None else found[0], rows.get(i)) for i, found in got]

    return shared(len(paths), batch)


# The postings of one kept record: (its index in the list, its id, what postings.postings made).
Made = tuple[int, int, tuple[str, str, str, str, int]]
Kept = tuple[int, str, str, bool, str, str]  # (id, slug, path, valid, description, body) of a record


def postings_of(records: list[Kept]) -> Iterator[list[Made]]:
    """The search postings of kept `records`, made from their kept text (a store first refreshed
    for context, or a new tokenizer): as batches in no set order, every index exactly once."""
    from memcli.store.postings import postings  # here: context fills no postings

    def made(indices: Sequence[int]) -> list[Made]:
        out = []
        for i in indices:
            doc_id, slug, path, ok, description, body = records[i]
            out.append((i, doc_id, postings(slug, path, bool(ok), description, body)))
        return out

    return shared(len(records), made)


Batch = Callable[[Sequence[int]], list[Any]]


def shared(count: int, batch: Batch) -> Iterator[list[Any]]:
    """`batch(indices)` over range(count), BATCH indices at a time: what of each index, as a
    marshal-able tuple whose first value is the index. As batches in no set order, every index
    exactly once; on forked helpers, each taking every procs-th index, when there are many."""
    procs = procs_for(count)
    if procs == 1:
        yield from _batches(range(count), batch)
        return
    shares = [range(i, count, procs) for i in range(procs)]
    started = [(share, forked.stream(_producer(share, batch))) for share in shares]
    helpers = [helper for _, helper in started if helper is not None]
    owned = [share for share, helper in started if helper is not None]
    todo = {i for share, helper in started if helper is None for i in share}  # the parent's to do
    got: list[set[int]] = [set() for _ in helpers]
    failed: set[int] = set()
    for n, frame in forked.frames(helpers):
        sent = _sent(frame) if n not in failed else None
        if sent is None:  # failed (or sent what does not read): the rest of its share is done here
            failed.add(n)
            continue
        got[n].update(item[0] for item in sent)
        yield sent
    for n, share in enumerate(owned):
        todo.update(i for i in share if i not in got[n])
    yield from _batches(sorted(todo), batch)


def _batches(indices: Sequence[int], batch: Batch) -> Iterator[list[Any]]:
    for at in range(0, len(indices), BATCH):
        yield batch(indices[at : at + BATCH])


Send = Callable[[bytes], None]


def _producer(share: range, batch: Batch) -> Callable[[Send], None]:
    """What a helper runs: `batch` over its share, each batch sent as soon as it is made."""

    def produce(send: Send) -> None:
        for made in _batches(share, batch):
            send(marshal.dumps(made))

    return produce


def _sent(frame: bytes | None) -> list[Any] | None:
    if frame is None:
        return None
    try:
        return marshal.loads(frame)
    except Exception:
        return None
