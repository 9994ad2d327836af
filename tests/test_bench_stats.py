"""What bench/agents_bench.py reads a goal off: the interval it prints (a bench that says a goal is met
must not say it from a wrong interval), and its check that the agents leave no memcli running."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench" / "agents_bench.py"


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    """bench/agents_bench.py (a script, not a package: loaded once)."""
    spec = importlib.util.spec_from_file_location("agents_bench", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(spec.name, module)  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def interval(bench: ModuleType) -> Callable[[list[float]], tuple[float, float]]:
    found: Callable[[list[float]], tuple[float, float]] = bench.median_interval
    return found


def test_the_median_interval_is_the_order_statistics_of_the_sign_test(
        interval: Callable[[list[float]], tuple[float, float]]) -> None:
    # the 95% interval of a median from the binomial table: n=9 → 2nd and 8th values, n=15 → 4th and
    # 12th, n=25 → 8th and 18th (each covers at least 95%; one rank further in covers less)
    for n, (low, high) in {9: (2, 8), 15: (4, 12), 25: (8, 18)}.items():
        values = [float(10 * v) for v in range(n, 0, -1)]  # unsorted on purpose
        assert interval(values) == (10.0 * low, 10.0 * high)


def test_too_few_values_give_the_whole_range(interval: Callable[[list[float]], tuple[float, float]]) -> None:
    assert interval([3.0, 1.0, 2.0]) == (1.0, 3.0)


@pytest.mark.skipif(not Path("/proc/self/cmdline").exists(), reason="reads /proc")
def test_a_memcli_process_left_after_the_agent_is_found_but_capture_s_worker_is_not(
        bench: ModuleType, tmp_path: Path) -> None:
    shim = str(tmp_path / "bin" / "memcli")  # as the bench's shim runs memcli: its path in argv
    sleep = [sys.executable, "-c", "import time; time.sleep(60)"]
    server = subprocess.Popen([*sleep, shim, "mcp"])
    worker = subprocess.Popen([*sleep, shim, "hooks", "capture"])
    other = subprocess.Popen([*sleep, str(tmp_path / "elsewhere" / "memcli"), "mcp"])
    try:
        left = bench._left_running(tmp_path, wait=0.5)
        assert len(left) == 1 and left[0].endswith(f"{shim} mcp"), left
    finally:
        for process in (server, worker, other):
            process.kill()
            process.wait()
    assert bench._left_running(tmp_path, wait=0) == []
