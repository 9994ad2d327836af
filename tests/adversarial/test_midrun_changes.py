"""A record file that changes between the listing and the read (#37 item 6): replaced by a FIFO, by
a link out of the workspace, by a 50 MB file, truncated or deleted right after a reader listed the
record folders. The run in progress never blocks, never reads outside, never raises; the next
run sees the file as it is now (nothing stale kept by the store or the lint cache).

The change is made at the one moment that matters, right after the listing (the record store's
`Listing` and the Linter's `Workspace.iter_files`), by wrapping them: the code under test is run
unchanged, only the timing of the other writer is chosen."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from adversarial.kit import FifoGuard, cli_routes, lint_findings, mcp_call, mcp_front

from memcli.store import store as store_module
from memcli.workspace import Workspace

SECRET = "OUTSIDE-SECRET-91c2"
TARGET = "knowledge/sqlite-backup.md"  # model-invoked: in the resident context


def _fifo(path: Path, outside: Path) -> None:
    path.unlink()
    os.mkfifo(path)


def _link_out(path: Path, outside: Path) -> None:
    path.unlink()
    os.symlink(outside, path)


def _huge(path: Path, outside: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data + b"padding line of a huge record\n" * (50 * 2**20 // 30))


def _truncate(path: Path, outside: Path) -> None:
    path.write_bytes(b"")


def _delete(path: Path, outside: Path) -> None:
    path.unlink()


CHANGES: dict[str, tuple[Callable[[Path, Path], None], set[str] | None]] = {
    # change → (what it does, the lint codes of TARGET once it is seen: None = gone)
    "fifo": (_fifo, {"parse"}),
    "link-out": (_link_out, {"parse"}),
    "huge": (_huge, {"too-large"}),
    "truncate": (_truncate, {"parse"}),
    "delete": (_delete, None),
}


@pytest.fixture
def swap_after_listing(monkeypatch: pytest.MonkeyPatch):
    """Arm a change to be made once, right after the next listing of the record folders."""
    armed: list[Callable[[], None]] = []

    def fire() -> None:
        while armed:
            armed.pop()()

    class Listing(store_module.Listing):
        def __init__(self, root: Path) -> None:
            super().__init__(root)
            fire()

    iter_files = Workspace.iter_files

    def listed(self: Workspace) -> list[str]:
        files = iter_files(self)
        fire()
        return files

    monkeypatch.setattr(store_module, "Listing", Listing)
    monkeypatch.setattr(Workspace, "iter_files", listed)
    return armed


@pytest.mark.parametrize("change", list(CHANGES))
def test_a_file_changed_between_listing_and_reading(
        change: str, example_ws: Path, tmp_path: Path, swap_after_listing: list,
        capsys: pytest.CaptureFixture[str]) -> None:
    make, seen_as = CHANGES[change]
    outside = tmp_path / "outside.md"
    outside.write_text((example_ws / TARGET).read_text(encoding="utf-8").replace("backup", SECRET))
    original = (example_ws / TARGET).read_bytes()
    cli_routes(example_ws, capsys)  # the store and the lint cache know the file as it was
    target = example_ws / TARGET
    with FifoGuard(example_ws) as guard:
        for route in ("lint", "context", "search", "gc-report", "memcli_read", "memcli_context"):
            if target.exists() or target.is_symlink():
                target.unlink()
            target.write_bytes(original)
            swap_after_listing.append(lambda: make(target, outside))
            if route == "memcli_read":  # named by path, nothing listed: changed just before
                swap_after_listing.pop()()
            if route.startswith("memcli_"):
                front = mcp_front(example_ws)
                is_error, text, _ = (mcp_call(front, route, record=TARGET) if route == "memcli_read"
                                     else mcp_call(front, route))
                front.searcher.close()
                assert SECRET not in text and (not is_error or "\n" not in text), (route, text)
            else:
                outs = cli_routes(example_ws, capsys, (route,))  # (asserts exit 0/1/2, no traceback)
                assert not any(SECRET in out or SECRET in err for _, out, err in outs.values())
            swap_after_listing.clear()
            # The next runs see the file as it is now, from the store and the cache alike.
            outs = cli_routes(example_ws, capsys, ("lint", "lint-no-cache", "context"))
            for name in ("lint", "lint-no-cache"):
                assert lint_findings(outs[name][1]).get(TARGET) == seen_as, (route, name, outs[name][1])
            assert "sqlite-backup" not in outs["context"][1], route
            assert not any(SECRET in out for _, out, _ in outs.values())
    assert guard.fired == [], f"blocked on {guard.fired}"
    # And once the file is back, every route has it again.
    if target.exists() or target.is_symlink():
        target.unlink()
    target.write_bytes(original)
    outs = cli_routes(example_ws, capsys)
    assert TARGET not in lint_findings(outs["lint"][1]) and "sqlite-backup" in outs["context"][1]
    assert outside.read_text(encoding="utf-8").count(SECRET) >= 1  # the outside file untouched
