"""The generated history (tests/support/eval_history.py) and the detector on it: the figures of
docs/eval.md come from bench/eval_quality.py; here, that the generator plants what it says and
that the detector stays well clear of chance on seeds it was not tuned on."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.eval_history import generate, score

from memcli.eval import evaluate, read_sessions


def test_the_generator_is_deterministic_and_plants_traps(tmp_path: Path) -> None:
    a, b = generate(5), generate(5)
    assert a.sessions == b.sessions and a.truth == b.truth
    lines = [line for _, ls in a.sessions for line in ls]
    planted = {text for (_, _, text) in a.truth}
    assert any(line.get("injected") for line in lines)  # instructions the user did not type here
    assert any(line["role"] == "tool" and "CONTRIBUTING" in line["content"] for line in lines)
    assert any(line["role"] == "assistant" and line["content"].startswith("Understood.") for line in lines)
    assert any(any("\u3040" <= ch <= "\u30ff" for ch in text) for text in planted)  # Japanese wordings
    assert any("`" in text for text in planted)  # code identifiers
    repeated = [label for label, sessions in a.labels().items() if len(sessions) >= 2]
    assert len(repeated) == 12


@pytest.mark.parametrize("seed", [101, 103])
def test_the_detector_on_seeds_it_was_not_tuned_on(tmp_path: Path, seed: int) -> None:
    history = generate(seed)
    history.write(tmp_path)
    report = evaluate(None, read_sessions(tmp_path, paths=[tmp_path]))
    found = [[(o.session_id, o.start, o.text) for o in rep.occurrences] for rep in report.repetitions]
    figures = score(history, found)
    assert figures["pair_precision"] >= 0.9 and figures["pair_recall"] >= 0.75, figures
    assert figures["group_recall"] >= 0.8, figures
    # only what the user typed: no occurrence on an agent, tool or injected line
    for rep in report.repetitions:
        for o in rep.occurrences:
            line = json.loads((tmp_path / f"{o.session_id}.jsonl").read_text().splitlines()[o.start])
            assert line["role"] == "user" and not line.get("injected")
