"""Read and parse the files a refresh must look at, and make the search postings of the records kept
without them: here, or on every core when they are many.

Reading, hashing, parsing YAML and tokenising text are CPU-bound pure Python, so threads would not
help; a forked helper starts at once with everything imported and takes a share of the files,
reads them itself, and sends what it made back through a pipe in batches as it goes (marshal:
rows are plain tuples). Below `MIN_FILES` forking costs more than it saves (a first build, an
upgrade or a bulk checkout go past it; everyday edits never do). The parent alone writes the
database: it stores each batch as it arrives, so storing overlaps reading and parsing instead of
following them. A helper that fails in any way just means the parent does what of its share did
not arrive.
"""

from __future__ import annotations

import marshal
from collections.abc import Callable, Iterator
from typing import Any

from memcli import forked

MIN_FILES = 1500  # files to read before a second process pays for itself
MAX_PROCS = 8
BATCH = 200  # rows a helper sends at once: the parent stores each batch while the next is made

# What a refresh learns of one file: (its index in the refresh's list, its content hash or None when
# it could not be read, its row or None when its content is the one kept).
Item = tuple[int, str | None, tuple[Any, ...] | None]
Fetch = Callable[[str], tuple[str, bytes] | None]  # path → (content hash, bytes), None: unreadable


def _row(rel: str, data: bytes, postings: bool) -> tuple[Any, ...]:
    from memcli.store.row import FIELDS, read_row  # here: the parser and its models, only for a changed file

    row = read_row(rel, data)
    made = None
    if postings:
        from memcli.store.postings import postings as make  # here: context fills no postings

        fields = dict(zip(FIELDS, row, strict=True))
        made = make(fields["slug"], rel, fields["parse_error"] is None, fields["description"], fields["body"])
    return (*row, made)


def procs_for(count: int) -> int:
    if count < MIN_FILES or not forked.can_fork():
        return 1
    return max(1, min(forked.cores(), MAX_PROCS, count // (MIN_FILES // 2)))


def items(paths: list[str], fetch: Fetch, kept: dict[str, str], postings: bool) -> Iterator[list[Item]]:
    """What each file of `paths` holds, read with `fetch` and compared with its `kept` content hash:
    as batches of Items in no set order; every index comes exactly once. The row comes with its
    postings when `postings` asks."""

    def item(i: int) -> Item:
        rel = paths[i]
        got = fetch(rel)
        if got is None:
            return i, None, None
        digest, data = got
        return i, digest, None if kept.get(rel) == digest else _row(rel, data, postings)

    return shared(len(paths), item)


# The postings of one kept record: (its index in the list, its id, what postings.postings made).
Made = tuple[int, int, tuple[str, str, str, str, int]]
Kept = tuple[int, str, str, bool, str, str]  # (id, slug, path, valid, description, body) of a record


def postings_of(records: list[Kept]) -> Iterator[list[Made]]:
    """The search postings of kept `records`, made from their kept text (a store first refreshed
    for context, or a new tokenizer): as batches in no set order, every index exactly once."""
    from memcli.store.postings import postings  # here: context fills no postings

    def made(i: int) -> Made:
        doc_id, slug, path, ok, description, body = records[i]
        return i, doc_id, postings(slug, path, bool(ok), description, body)

    return shared(len(records), made)


def shared(count: int, one: Callable[[int], tuple[Any, ...]]) -> Iterator[list[Any]]:
    """`one(i)` for every i in range(count), a marshal-able tuple whose first value is i: as batches
    in no set order, every index exactly once; on forked helpers, each taking every procs-th index,
    when there are many."""
    procs = procs_for(count)
    if procs == 1:
        yield [one(i) for i in range(count)]
        return
    shares = [range(i, count, procs) for i in range(procs)]
    started = [(share, forked.stream(_producer(share, one))) for share in shares]
    helpers = [helper for _, helper in started if helper is not None]
    owned = [share for share, helper in started if helper is not None]
    todo = {i for share, helper in started if helper is None for i in share}  # the parent's to do
    got: list[set[int]] = [set() for _ in helpers]
    failed: set[int] = set()
    for n, frame in forked.frames(helpers):
        batch = _batch(frame) if n not in failed else None
        if batch is None:  # failed (or sent what does not read): the rest of its share is done here
            failed.add(n)
            continue
        got[n].update(item[0] for item in batch)
        yield batch
    for n, share in enumerate(owned):
        todo.update(i for i in share if i not in got[n])
    if todo:
        yield [one(i) for i in sorted(todo)]


Send = Callable[[bytes], None]


def _producer(share: range, one: Callable[[int], tuple[Any, ...]]) -> Callable[[Send], None]:
    """What a helper runs: `one` of each index of its share, sent BATCH at a time."""

    def produce(send: Send) -> None:
        for at in range(0, len(share), BATCH):
            send(marshal.dumps([one(i) for i in share[at : at + BATCH]]))

    return produce


def _batch(frame: bytes | None) -> list[Any] | None:
    if frame is None:
        return None
    try:
        return marshal.loads(frame)
    except Exception:
        return None
