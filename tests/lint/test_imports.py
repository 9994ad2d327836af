"""The commit path stays light: `memcli --help` and `memcli lint` never import the LLM stack."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "workspace"

PROBE = """
import sys
from memcli.cli import main
try:
    main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code
heavy = sorted(m for m in sys.modules if m.split(".")[0] in ("litellm", "openai", "tiktoken", "git"))
print("HEAVY:" + ",".join(heavy), file=sys.stderr)
sys.exit(code)
"""


@pytest.mark.parametrize(
    "argv",
    [
        ["--help"],
        ["lint", "--help"],
        ["lint", "-w", str(EXAMPLE)],
        ["lint", "-w", str(EXAMPLE), "--format", "sarif"],
    ],
)
def test_no_heavy_imports(argv: list[str], tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-c", PROBE, *argv], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "HEAVY:\n" in proc.stderr, proc.stderr.splitlines()[-1]
