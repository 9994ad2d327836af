"""The English stemmer loaded without the rest of snowballstemmer stems as the package's does, and
leaves the package importable (memcli.analysis.text._stemmer)."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
WORDS = ("running backups caresses ponies generously consolidation tokenizer retries flies dying agreed"
         " hopefully feudalism sensational conditional rationalize electrical cats owned news skies")
PROBE = f"""
import sys
from memcli.analysis.text import _stemmer
alone = _stemmer()
loaded_alone = sorted(n for n in sys.modules if n.split(".")[0] == "snowballstemmer")
import snowballstemmer
package = snowballstemmer.stemmer("english")
words = {WORDS!r}.split()
print(loaded_alone, len(snowballstemmer.algorithms()) > 1,
      [alone.stemWord(w) for w in words] == [package.stemWord(w) for w in words],
      [alone.stemWord(w) for w in words][:4])
"""


def test_the_english_stemmer_alone_stems_as_the_package_and_leaves_it_importable() -> None:
    if importlib.util.find_spec("Stemmer") is not None:
        pytest.skip("PyStemmer installed: the package's stemmer is used, as before")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["[]", "True", "True", "['run',", "'backup',", "'caress',", "'poni']"]


def test_threads_loading_the_stemmer_at_once_each_get_one() -> None:
    """Extract's and import's worker threads stem at once: none may see the stand-in package."""
    import subprocess
    import sys

    code = ("import threading\nfrom memcli.analysis import text\nerrors = []\n"
            "barrier = threading.Barrier(8)\n"
            "def load():\n    barrier.wait()\n    for _ in range(20):\n        try:\n"
            "            assert text._stemmer_maker.__wrapped__()().stemWord('compaction') == 'compact'\n"
            "        except Exception as exc:\n            errors.append(repr(exc))\n"
            "threads = [threading.Thread(target=load) for _ in range(8)]\n"
            "[t.start() for t in threads]\n[t.join() for t in threads]\nprint(len(errors), errors[:1])\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("0 "), done.stdout


def test_threads_stemming_at_once_get_the_stems_one_thread_gets() -> None:
    """Snowball's pure-Python stemmer keeps its cursor in the instance: one instance shared by
    import's worker threads mixed two words and raised IndexError mid-run (CI, stop 45). Each
    thread must stem as if it were alone."""
    code = ("import sys, threading\nsys.setswitchinterval(1e-6)\nfrom memcli.analysis import text\n"
            f"base = {WORDS!r}.split()\n"
            "words = [w + s for w in base for s in ('', 's', 'ing', 'ed', 'ness', 'ational', 'fulness')]\n"
            "alone = {w: text._stemmer().stemWord(w) for w in words}\n"
            "errors = []\nbarrier = threading.Barrier(6)\n"
            "def stem(k):\n    barrier.wait()\n    for n in range(300):\n"
            "        w = words[(n * 7 + k) % len(words)]\n"
            "        try:\n            got = text._stemmer().stemWord(w)\n"
            "            if got != alone[w]:\n                errors.append((w, got))\n"
            "        except Exception as exc:\n            errors.append(repr(exc))\n"
            "threads = [threading.Thread(target=stem, args=(k,)) for k in range(6)]\n"
            "[t.start() for t in threads]\n[t.join() for t in threads]\nprint(len(errors), errors[:2])\n")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("0 "), done.stdout
