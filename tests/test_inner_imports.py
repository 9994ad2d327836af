"""An import inside a function stays only where a start-up path needs it, and says which with a
`# here:` comment (docs/architecture.md, "Imports inside functions"): on its line, or in the
lines just above it in its block of imports (a comment, or the block's first import), or the
function's `def` line. memcli/cli.py is the one exception its docstring
explains: each command's module is imported when the command runs, so `memcli --help` loads none."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "memcli"
EXEMPT = {"cli.py"}


def unexplained(path: Path, root: Path = PACKAGE.parent) -> list[str]:
    lines = path.read_text(encoding="utf-8").splitlines()
    out = []
    for fn in ast.walk(ast.parse("\n".join(lines))):
        if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for node in ast.walk(fn):
            if not isinstance(node, ast.Import | ast.ImportFrom):
                continue
            i = node.lineno - 1
            explained = "# here" in lines[i]
            j = i - 1
            while not explained and j >= fn.lineno - 1:  # up through its block of imports and comments
                above = lines[j].strip()
                if j == fn.lineno - 1:  # the `def` line itself may say it
                    explained = "# here" in above
                    break
                if not above.startswith(("#", "from ", "import ")) and above:
                    break
                explained = "# here" in above  # a comment, or the block's first import saying it
                j -= 1
            if not explained:
                out.append(f"{path.relative_to(root)}:{node.lineno}: {lines[i].strip()}")
    return out


def test_every_import_inside_a_function_says_which_start_up_path_needs_it() -> None:
    found = [hit for path in sorted(PACKAGE.rglob("*.py")) if path.name not in EXEMPT
             or path.parent != PACKAGE for hit in unexplained(path)]
    assert found == []


def test_the_check_finds_an_import_without_its_reason(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text("def f():\n    import json\n\n    # here: the hook's start-up\n    import yaml\n"
                      "    return json, yaml\n", encoding="utf-8")
    assert unexplained(module, tmp_path) == ["m.py:2: import json"]
