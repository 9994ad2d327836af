"""Token counting for budgets (`memcli context`), without ever touching the network.

tiktoken downloads its BPE table on first use unless the file is already cached, and a command that
runs at every agent session start must not hang on (or leak to) the network. So the cl100k_base table
is looked up only in local places — tiktoken's own cache folder (`TIKTOKEN_CACHE_DIR`,
`DATA_GYM_CACHE_DIR`, `<tmp>/data-gym-cache`) and the copy that litellm ships inside its package —
and read directly from disk. When tiktoken or the file is missing, a documented estimate is used:
one token per 3 ASCII characters plus 1.5 tokens per other character (CJK). It errs on the high
side of cl100k_base on English and everyday Japanese text, so a budget met by the estimate holds for
real on prose (rare kanji, ~2 tokens each, and hex ids are denser: the known exceptions).

Reading the table is most of what a `memcli context` run costs (100 000 base64 lines decoded in
Python), and that command runs at every agent session start. So the decoded table is kept, once,
in the state folder as a `marshal` file named after the table's hash and the Python version, and
read from there (about 7x faster); a cache file that does not load back into exactly the table's
shape is ignored and rewritten.
"""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import marshal
import math
import os
import sys
import tempfile
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol

from memcli.atomicio import atomic_write_bytes
from memcli.values import frozen

ENCODING = "cl100k_base"
_URL = "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken"
_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"
# cl100k_base's definition (tiktoken_ext.openai_public.cl100k_base), repeated here because calling
# that function would go through tiktoken's downloader.
_PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|"""
    r"""\s*[\r\n]|\s+(?!\S)|\s"""
)
_SPECIAL = {
    "<|endoftext|>": 100257,
    "<|fim_prefix|>": 100258,
    "<|fim_middle|>": 100259,
    "<|fim_suffix|>": 100260,
    "<|endofprompt|>": 100276,
}
ESTIMATE = "estimate"


class TokenCounter(Protocol):
    @property
    def name(self) -> str: ...  # read-only: the counters are frozen dataclasses

    def count(self, text: str) -> int: ...


@frozen
class EstimateCounter:
    """The fallback: ceil(ASCII chars / 3 + other chars * 1.5)."""

    name: str = ESTIMATE

    def count(self, text: str) -> int:
        ascii_chars = sum(1 for ch in text if ch < "\x80")
        return math.ceil(ascii_chars / 3 + (len(text) - ascii_chars) * 1.5)


@frozen
class TiktokenCounter:
    encoding: Any
    name: str = ENCODING

    def count(self, text: str) -> int:
        # Special-token text in a record is ordinary text here, not a control token.
        return len(self.encoding.encode(text, disallowed_special=()))


def _cache_dirs() -> list[Path]:
    dirs = [os.environ.get("TIKTOKEN_CACHE_DIR"), os.environ.get("DATA_GYM_CACHE_DIR")]
    dirs.append(os.path.join(tempfile.gettempdir(), "data-gym-cache"))
    out = [Path(d) for d in dirs if d]
    # find_spec on a top-level package locates it without importing it (litellm is slow to import).
    spec = importlib.util.find_spec("litellm")
    if spec is not None and spec.submodule_search_locations:
        for location in spec.submodule_search_locations:
            out.append(Path(location) / "litellm_core_utils" / "tokenizers")
    return out


def local_bpe_file() -> Path | None:
    """The cl100k_base table on this machine (verified by its hash), or None."""
    key = hashlib.sha1(_URL.encode()).hexdigest()  # tiktoken's cache file name
    for directory in _cache_dirs():
        path = directory / key
        try:
            data = path.read_bytes()
        except OSError:
            continue
        if hashlib.sha256(data).hexdigest() == _SHA256:
            return path
    return None


_RANKS = 100_256  # entries in cl100k_base: a cached table of another size is not this one


def _parse_ranks(data: bytes) -> dict[bytes, int]:
    ranks: dict[bytes, int] = {}
    for line in data.splitlines():
        if line:
            token, rank = line.split()
            ranks[base64.b64decode(token)] = int(rank)
    return ranks


def _ranks_cache(cache_dir: Path) -> Path:
    # marshal's format may change between Python versions: one file per version.
    return cache_dir / f"tokenizer-{_SHA256[:12]}-py{sys.version_info[0]}{sys.version_info[1]}.marshal"


def _load_ranks(path: Path, cache_dir: Path | None) -> dict[bytes, int]:
    """The table's ranks, from the marshal cache when it is there and sound, else parsed (and cached)."""
    cached = _ranks_cache(cache_dir) if cache_dir is not None else None
    if cached is not None:
        try:
            ranks = marshal.loads(cached.read_bytes())
        except (OSError, EOFError, ValueError, TypeError):
            ranks = None
        if isinstance(ranks, dict) and len(ranks) == _RANKS:
            return ranks
    ranks = _parse_ranks(path.read_bytes())
    if cached is not None:
        try:
            atomic_write_bytes(cached, marshal.dumps(ranks))
        except OSError:
            pass  # a read-only state folder: the next run parses again, nothing else changes
    return ranks


def _load_tiktoken(path: Path, cache_dir: Path | None = None) -> Any:
    import tiktoken  # here: the optional exact count, on a memo miss only

    ranks = _load_ranks(path, cache_dir)
    return tiktoken.Encoding(ENCODING, pat_str=_PATTERN, mergeable_ranks=ranks, special_tokens=_SPECIAL)


def counter_id() -> str:
    """Which counter `get_counter` builds, without building it: a key for memoised counts, from file
    stats alone. It changes whenever the counter may (tiktoken installed, upgraded or removed; the
    table added, replaced or removed), so a warm session start neither hashes the table (1.7 MB)
    nor reads the installed distributions' metadata (`importlib.metadata`, ~0.1 s); a table found
    unsound by `get_counter` only means the memo holds its estimate under this key."""
    spec = importlib.util.find_spec("tiktoken")
    if spec is None:
        return ESTIMATE
    key = hashlib.sha1(_URL.encode()).hexdigest()  # tiktoken's cache file name
    tables = [stamp for stamp in (_stamp(directory / key) for directory in _cache_dirs()) if stamp]
    if not tables:
        return ESTIMATE
    return " ".join(["tiktoken", _stamp(Path(spec.origin)) if spec.origin else "", *tables])


def counter_files() -> list[Path]:
    """The files whose stats `counter_id` reads (tiktoken's module, the places its table may be): a
    memo of counted text stays true while none of them changes (memcli.hooks.startmemo)."""
    spec = importlib.util.find_spec("tiktoken")
    if spec is None:
        return []
    key = hashlib.sha1(_URL.encode()).hexdigest()
    return [*([Path(spec.origin)] if spec.origin else []), *(directory / key for directory in _cache_dirs())]


def _stamp(path: Path) -> str:
    """`path`, its size and its modification time ('' when it is not there)."""
    try:
        st = path.stat()
    except OSError:
        return ""
    return f"{path}:{st.st_size}:{st.st_mtime_ns}"


@lru_cache(maxsize=4)
def get_counter(cache_dir: Path | None = None) -> TokenCounter:
    """The real cl100k_base tokenizer when tiktoken and its table are here, else the estimate.
    `cache_dir` (a state folder) keeps the decoded table for the next process."""
    if importlib.util.find_spec("tiktoken") is None:
        return EstimateCounter()
    path = local_bpe_file()
    if path is None:
        return EstimateCounter()
    return TiktokenCounter(_load_tiktoken(path, cache_dir))
