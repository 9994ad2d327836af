"""Meaning, optional: statement and record vectors from the embedding model search uses.

With `[search] embedding_model` set, two statements whose vectors have a cosine of at least
detect.SAME_MEANING are one instruction too (a translation with no shared word), and a record
passage at coverage.COVER_MEANING or more covers a statement. The model is reached through
search's gateway (memcli.search.semantic.Embedder → memcli.llm.embed); without a configured
model this module is never imported, and neither is litellm.

Vectors are kept in `<state>/eval/vectors.sqlite` by model and text, so a second run embeds only
what is new. A model that fails leaves the run lexical, with the reason in the report.
"""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path
from typing import Any

from memcli.atomicio import make_dirs
from memcli.llm import LLMError
from memcli.search.semantic import Embedder, unavailable


class Meaning:
    def __init__(self, embedder: Embedder, state_dir: Path | None) -> None:
        self.embedder = embedder
        self.error: str | None = unavailable()
        self.embedded = 0
        self._mem: dict[str, Any] = {}
        self._db: sqlite3.Connection | None = None
        if state_dir is not None and self.error is None:
            try:
                make_dirs(state_dir / "eval")
                self._db = sqlite3.connect(state_dir / "eval" / "vectors.sqlite", isolation_level=None)
                self._db.execute("CREATE TABLE IF NOT EXISTS vectors(space TEXT, digest TEXT, vec BLOB, "
                                 "PRIMARY KEY (space, digest))")
            except (OSError, sqlite3.Error):
                self._db = None  # a cache: without it every run embeds again

    @property
    def ok(self) -> bool:
        return self.error is None

    def vectors(self, texts: list[str]) -> Any | None:
        """A unit-length row per text (numpy float32), or None once the model has failed."""
        if self.error is not None:
            return None
        import numpy as np  # here: numpy is the optional `semantic` extra


        keys = [hashlib.sha1(t.encode("utf-8")).hexdigest() for t in texts]
        self._load([k for k in dict.fromkeys(keys) if k not in self._mem])
        todo = list({k: t for k, t in zip(keys, texts, strict=True) if k not in self._mem}.items())
        for i in range(0, len(todo), self.embedder.batch):
            chunk = todo[i : i + self.embedder.batch]
            try:
                packed = self.embedder.embed([t for _, t in chunk])
            except LLMError as exc:
                self.error = str(exc)
                return None
            for (key, _), vec in zip(chunk, packed, strict=True):
                self._mem[key] = np.frombuffer(vec, dtype=np.float32)
            self._save([(k, v) for (k, _), v in zip(chunk, packed, strict=True)])
            self.embedded += len(chunk)
        width = {len(self._mem[k]) for k in keys}
        if len(width) > 1:
            self.error = "the embedding model answered vectors of different sizes"
            return None
        return np.stack([self._mem[k] for k in keys]) if keys else np.zeros((0, 0), dtype=np.float32)

    def _load(self, keys: list[str]) -> None:
        if self._db is None or not keys:
            return
        import numpy as np  # here: numpy only with an embedding model; `memcli eval` runs without one

        for start in range(0, len(keys), 500):
            part = keys[start : start + 500]
            marks = ",".join("?" * len(part))
            sql = f"SELECT digest, vec FROM vectors WHERE space = ? AND digest IN ({marks})"
            rows = self._db.execute(sql, (self.embedder.space, *part)).fetchall()
            for digest, vec in rows:
                self._mem[digest] = np.frombuffer(vec, dtype=np.float32)

    def _save(self, rows: list[tuple[str, bytes]]) -> None:
        if self._db is None:
            return
        try:
            self._db.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?, ?)",
                                 [(self.embedder.space, k, v) for k, v in rows])
        except sqlite3.Error:
            self._db = None

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
