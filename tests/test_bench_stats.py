"""The statistics the speed benches print (bench/agents_bench.py): a bench that says a goal is met
must not say it from a wrong interval."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench" / "agents_bench.py"


@pytest.fixture(scope="module")
def interval() -> Callable[[list[float]], tuple[float, float]]:
    """bench/agents_bench.py's median_interval (the bench is a script, not a package: loaded once)."""
    spec = importlib.util.spec_from_file_location("agents_bench", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(spec.name, module)  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    found: Callable[[list[float]], tuple[float, float]] = module.median_interval
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
