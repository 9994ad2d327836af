"""Benchmark the secret detector (memcli.secrets) against a baseline version, in the same run.

Usage: python bench/redaction_bench.py [--baseline REF] [--corpus DIR ...] [--runs 7]

Side by side, this checkout and the detector at git REF (default `main`, read with `git show`):
  formats     how many of the 38 realistic formats of tests/adversarial/test_secure_redaction.py
              each version redacts
  corpus      detections over real transcripts (default: /work/shared/corpus/transcripts and
              tests/fixtures/transcripts): none of them holds a real secret, so every hit is a
              false positive; each is listed with its kind and a few characters around it
  redact      median seconds to redact the whole corpus
  import      median wall time of a cold `python -c "import memcli.secrets; ..."` that redacts one
              short record (what the commit path's `secret` rule pays), minus a bare `python -c pass`
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_CORPUS = [Path("/work/shared/corpus/transcripts"), REPO / "tests" / "fixtures" / "transcripts"]
SUFFIXES = {".jsonl", ".json", ".md", ".yaml"}


def _baseline(ref: str, where: Path) -> Path:
    """The detector at `ref` as a package folder under `where` (one module or a package)."""
    pkg = where / "memcli"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("", encoding="utf-8")
    listed = subprocess.run(["git", "ls-tree", "-r", "--name-only", ref, "memcli/secrets.py",
                             "memcli/secrets"], cwd=REPO, capture_output=True, text=True, check=True).stdout
    for name in listed.split():
        data = subprocess.run(["git", "show", f"{ref}:{name}"], cwd=REPO, capture_output=True,
                              check=True).stdout
        target = where / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return where


def _load(root: Path, name: str):
    """memcli.secrets from the tree at `root`, as a module of its own name."""
    init = root / "memcli" / "secrets" / "__init__.py"
    path = init if init.exists() else root / "memcli" / "secrets.py"
    spec = importlib.util.spec_from_file_location(
        "memcli.secrets", path, submodule_search_locations=[str(path.parent)] if init.exists() else None)
    assert spec and spec.loader
    saved = {k: v for k, v in sys.modules.items() if k == "memcli.secrets" or k.startswith("memcli.secrets.")}
    for k in saved:
        del sys.modules[k]
    module = importlib.util.module_from_spec(spec)
    sys.modules["memcli.secrets"] = module
    spec.loader.exec_module(module)
    for k in [k for k in sys.modules if k == "memcli.secrets" or k.startswith("memcli.secrets.")]:
        sys.modules[f"{name}:{k}"] = sys.modules.pop(k)
    sys.modules.update(saved)
    return module


def _corpus(folders: list[Path]) -> list[tuple[str, str]]:
    out = []
    for folder in folders:
        for path in sorted(folder.rglob("*")):
            if path.is_file() and path.suffix in SUFFIXES:
                out.append((str(path), path.read_bytes().decode("utf-8", "replace")))
    return out


def _formats() -> list[tuple[str, str, str]]:
    spec = importlib.util.spec_from_file_location(
        "secure_formats", REPO / "tests" / "adversarial" / "test_secure_redaction.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.FORMATS


def _cold(pythonpath: Path, runs: int) -> float:
    code = ("import memcli.secrets as s; s.redact('---\\nupdated_at: 2026-01-01\\n---\\n"
            "Use WAL mode; key in $DB_PASSWORD. 鍵は環境変数にある。\\n')")
    env = {**os.environ, "PYTHONPATH": str(pythonpath)}

    def once(src: str) -> float:
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", src], env=env, check=True)
        return time.perf_counter() - start

    bare, full = [], []
    for _ in range(runs):  # interleaved: load on the shared machine hits both alike
        bare.append(once("pass"))
        full.append(once(code))
    return statistics.median(full) - statistics.median(bare)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--baseline", default="main")
    ap.add_argument("--corpus", type=Path, nargs="*", default=DEFAULT_CORPUS)
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base_root = _baseline(args.baseline, Path(tmp))
        versions = {args.baseline: _load(base_root, "baseline"), "this checkout": _load(REPO, "current")}
        corpus = _corpus(args.corpus)
        formats = _formats()
        size = sum(len(t) for _, t in corpus)
        print(f"corpus: {len(corpus)} files, {size:,} characters; formats: {len(formats)}")
        for label, mod in versions.items():
            caught = sum(1 for _, text, secret in formats
                         if mod.redact(text)[1] and secret not in mod.redact(text)[0])
            hits = [(p, m, t) for p, t in corpus for m in mod.find_secrets(t)]
            times = []
            for _ in range(args.runs):
                start = time.perf_counter()
                for _, text in corpus:
                    mod.redact(text)
                times.append(time.perf_counter() - start)
            print(f"\n{label}: formats redacted {caught}/{len(formats)}; corpus detections (false positives) "
                  f"{len(hits)}; redact corpus median {statistics.median(times):.3f} s")
            for path, m, text in hits:
                around = text[max(0, m.start - 30):m.end + 10].replace("\n", "\\n")
                print(f"  {m.kind:<24} {Path(path).name[:40]:<40} …{around[:90]}…")
        print("\ncold import + one redaction, minus bare python (median of "
              f"{args.runs} interleaved runs):")
        print(f"  {args.baseline:<14} {_cold(base_root, args.runs) * 1000:.1f} ms")
        print(f"  {'this checkout':<14} {_cold(REPO, args.runs) * 1000:.1f} ms")


if __name__ == "__main__":
    main()
