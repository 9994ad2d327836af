"""A lean start on every process path: what a command imports (`python -X importtime`, a warm run
through the `memcli` entry point, output piped) holds nothing it does not use. The parser and
models of records are not loaded when no record changed; rich only where a table is drawn; the
tokenizer, Typer, the LLM and MCP stacks only on the paths that need them."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "workspace"
IMPORTED = re.compile(r"import time:\s+\d+ \|\s+\d+ \|\s*(\S+)")
# (inotify_simple: a short-lived process keeps the listing; a watch pays off only in a long one)
NEVER = {"litellm", "openai", "tiktoken", "numpy", "mcp", "git", "httpx", "jsonschema", "inotify_simple"}
CHANGED_RECORDS = {"yaml", "memcli.records.parse", "memcli.records.models"}  # only to parse a record
SEARCH = {"snowballstemmer", "memcli.search"}
CLI = {"typer", "click"}
LEAN = NEVER | CHANGED_RECORDS | CLI | {"rich", "memcli.lint", "pydantic"}  # context, search: no Typer
PATHS: dict[str, tuple[list[str], set[str]]] = {
    "context": (["context"], LEAN | SEARCH | {"rapidfuzz"}),
    "context --json": (["context", "--json"], LEAN | SEARCH),
    "search": (["search", "sqlite backup"], LEAN | {"memcli.context"}),
    "search --json": (["search", "wal", "--json"], LEAN),
    "lint --paths-only": (["lint", "--paths-only", "knowledge/wal-mode.md"],
                          NEVER | CHANGED_RECORDS | SEARCH | CLI | {"rich", "pydantic"}),
    "lint": (["lint"], NEVER | {"yaml", "memcli.records.parse"} | SEARCH | {"rich"}),
    "gc-report --json": (["gc-report", "--json"], NEVER | {"yaml"} | SEARCH | {"rich"}),
    # (why reads its one record's frontmatter again, plain YAML being not kept (memcli/store/row.py),
    # with the plain reader, which resolves scalars with PyYAML's resolver: yaml is loaded)
    "why": (["why", "sqlite-backup"], NEVER | SEARCH | {"rich", "rapidfuzz", "memcli.lint"}),
    # (status reads the consolidation's modules, which load the memory tools and the Linter)
    "status": (["status"], NEVER | {"yaml", "snowballstemmer", "rich"}),
    "--help": (["--help"], NEVER | CHANGED_RECORDS | SEARCH | {"pydantic", "rich", "sqlite3"}),
    # nothing changed: the records are hashed, not parsed (last: it writes the agents' skill folders)
    "skills sync": (["skills", "sync", "--agent", "all"], LEAN | SEARCH | {"rapidfuzz"}),
}


def _imported(argv: list[str], cwd: Path) -> set[str]:
    done = subprocess.run([sys.executable, "-X", "importtime", "-c", "from memcli.entry import main; main()",
                           *argv], cwd=cwd, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    names = set()
    for line in done.stderr.splitlines():
        found = IMPORTED.match(line)
        if found:
            parts = found.group(1).split(".")
            names.update(".".join(parts[:n]) for n in range(1, len(parts) + 1))
    return names


@pytest.fixture(scope="module")
def warm(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example workspace, every command run once (the store and caches filled)."""
    root = tmp_path_factory.mktemp("lean") / "ws"
    shutil.copytree(EXAMPLE, root)
    return root


@pytest.mark.parametrize("name", list(PATHS))
def test_a_warm_command_imports_only_what_it_uses(warm: Path, name: str) -> None:
    argv, unused = PATHS[name]
    _imported(argv, warm)  # the first run fills the store, the caches and the context memo
    loaded = _imported(argv, warm)
    assert not loaded & unused, f"memcli {' '.join(argv)} imported {sorted(loaded & unused)}"


# The commit path of a record edited just before (as at every commit): the record is read and
# checked, YAML loaded, but a valid frontmatter is validated without pydantic and its models
# (memcli/records/fields.py); only a record with a field error needs them, for the wording.
EDITS = {
    "body": lambda text: text + "\nOne more line.\n",
    "frontmatter": lambda text: re.sub(r"updated_at: \S+", "updated_at: 2026-06-01T08:00:00Z", text, count=1),
}
EDITED_UNUSED = NEVER | SEARCH | CLI | {"rich", "pydantic", "pydantic_core", "memcli.records.models"}


@pytest.mark.parametrize("edit", list(EDITS))
@pytest.mark.parametrize("rel", ["knowledge/wal-mode.md", "memory/decisions/api-versioning.md"])
def test_the_commit_path_of_a_just_edited_valid_record_loads_no_pydantic(tmp_path: Path, rel: str,
                                                                         edit: str) -> None:
    root = tmp_path / "ws"
    shutil.copytree(EXAMPLE, root)
    argv = ["lint", "--paths-only", rel]
    _imported(argv, root)  # the store and the Linter's cache filled
    path = root / rel
    before = path.read_text(encoding="utf-8")
    path.write_text(EDITS[edit](before), encoding="utf-8")
    assert path.read_text(encoding="utf-8") != before
    loaded = _imported(argv, root)
    assert "yaml" in loaded  # the record was read again
    assert not loaded & EDITED_UNUSED, f"memcli {' '.join(argv)} imported {sorted(loaded & EDITED_UNUSED)}"


def test_a_just_edited_record_with_a_field_error_is_worded_by_pydantic(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    shutil.copytree(EXAMPLE, root)
    rel = "knowledge/wal-mode.md"
    path = root / rel
    path.write_text(path.read_text(encoding="utf-8").replace("user_invocable: true", "user_invocable: maybe"),
                    encoding="utf-8")
    done = subprocess.run([sys.executable, "-X", "importtime", "-c", "from memcli.entry import main; main()",
                           "lint", "--paths-only", rel], cwd=root, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 1
    assert "user_invocable: Input should be a valid boolean" in done.stdout, done.stdout
    assert "import time:" in done.stderr and " pydantic" in done.stderr


def test_extract_dry_run_loads_no_model_library(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A dry run calls nothing: the window it cuts chunks for comes from litellm's model table read
    as a file (tests/llm/test_context.py: the same window litellm gives), litellm is not imported."""
    root = tmp_path / "ws"
    shutil.copytree(EXAMPLE, root)
    session = tmp_path / "s.jsonl"
    session.write_text("".join(
        f'{{"role": "{"user" if i % 2 == 0 else "assistant"}", "content": "message {i}: keep the index in '
        f'SQLite", "timestamp": "2026-01-01T00:00:00Z"}}\n' for i in range(4)), encoding="utf-8")
    monkeypatch.setenv("MEMCLI_EXTRACT_MODEL", "openai/gpt-4o-mini")  # a model litellm knows
    argv = ["extract", "--dry-run", "--path", str(session)]
    loaded = _imported(argv, root)
    assert not loaded & NEVER, f"memcli {' '.join(argv)} imported {sorted(loaded & NEVER)}"
    done = subprocess.run([sys.executable, "-m", "memcli", *argv], cwd=root, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0 and done.stdout.startswith("# dry run: 1 chunk(s) from 1 session(s)")
