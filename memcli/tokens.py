"""Token counting for budgets (`memcli context`), without ever touching the network.

tiktoken downloads its BPE table on first use unless the file is already cached, and a command that
runs at every agent session start must not hang on (or leak to) the network. So the cl100k_base table
is looked up only in local places — tiktoken's own cache folder (`TIKTOKEN_CACHE_DIR`,
`DATA_GYM_CACHE_DIR`, `<tmp>/data-gym-cache`) and the copy that litellm ships inside its package —
and read directly from disk. When tiktoken or the file is missing, a documented estimate is used:
one token per 3 ASCII characters plus 1.5 tokens per other character (CJK). It errs on the high
side of cl100k_base on English and everyday Japanese text, so a budget met by the estimate holds for
real on prose (rare kanji, ~2 tokens each, and hex ids are denser: the known exceptions).
"""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import math
import os
import tempfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol

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
    name: str

    def count(self, text: str) -> int: ...


@dataclass(frozen=True)
class EstimateCounter:
    """The fallback: ceil(ASCII chars / 3 + other chars * 1.5)."""

    name: str = ESTIMATE

    def count(self, text: str) -> int:
        ascii_chars = sum(1 for ch in text if ch < "\x80")
        return math.ceil(ascii_chars / 3 + (len(text) - ascii_chars) * 1.5)


@dataclass(frozen=True)
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


def _load_tiktoken(path: Path) -> Any:
    import tiktoken

    ranks: dict[bytes, int] = {}
    for line in path.read_bytes().splitlines():
        if line:
            token, rank = line.split()
            ranks[base64.b64decode(token)] = int(rank)
    return tiktoken.Encoding(ENCODING, pat_str=_PATTERN, mergeable_ranks=ranks, special_tokens=_SPECIAL)


@lru_cache(maxsize=1)
def get_counter() -> TokenCounter:
    """The real cl100k_base tokenizer when tiktoken and its table are here, else the estimate."""
    if importlib.util.find_spec("tiktoken") is None:
        return EstimateCounter()
    path = local_bpe_file()
    if path is None:
        return EstimateCounter()
    return TiktokenCounter(_load_tiktoken(path))
