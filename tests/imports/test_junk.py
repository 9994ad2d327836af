"""`memcli import` refuses a weak model's junk items as extract does (memcli.staging.sifted), over
the real request path, and says how many it dropped."""

from __future__ import annotations

import json

from imports.helpers import World, echo_blocks, staged
from support.fake_llm import FakeLLM, Reply

from memcli.imports.run import run

JUNK = [{"title": "][", "decision": "Keep the index"}, {"title": "DecisionItem", "decision": "DecisionItem"},
        {"title": "再試行", "decision": "…"}]


def test_import_stages_the_words_and_counts_the_junk(world: World, fake_llm: FakeLLM, capsys) -> None:
    def answer(body: dict) -> Reply:
        items = json.loads(echo_blocks(body).content or "{}")
        items["decisions"] = JUNK
        return Reply(content=json.dumps(items, ensure_ascii=False))

    fake_llm.responder = answer
    assert run(world.ws, as_json=True) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["items_dropped"] == 3 * out["chunks_done"] > 0
    files = staged(world.root)
    assert files and not any(f.items.decisions for f in files)
    assert sum(len(f.items.requests) for f in files) == out["items"]["requests"] > 0
