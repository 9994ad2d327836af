"""Vendoring gitleaks' rules: `python -m memcli.secrets.vendor GITLEAKS_TOML` rewrites gitleaks.py.

gitleaks (MIT, github.com/gitleaks/gitleaks, config/gitleaks.toml) keeps a maintained rule set for
some 200 vendors' keys. Its regexes are Go's (RE2): this turns them into Python's — a `(?i)` in
the middle of a pattern scopes to the end of its group in Go and becomes `(?i:…)`, `\\z` becomes
`\\Z`, `[[:alnum:]]` a plain class, a `[` inside a class is escaped — and they are compiled with
re.ASCII, as Go's `\\b`, `\\w`, `\\s` are ASCII: a key written right after Japanese text
(`鍵はAKIA…`) still starts at a word boundary. Rules tied to file paths and the generic assignment
rule (memcli's own `credential-assignment` judges values better in prose) are left out. The table
is generated once, so no TOML is parsed on the commit path.
"""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

SKIPPED = {"generic-api-key"}  # memcli's credential-assignment covers it with its value checks
TARGET = Path(__file__).with_name("gitleaks.py")

NOTICE = '''MIT License

Copyright (c) 2019 Zachary Rice

Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the "Software"), to deal
in the Software without restriction, including without limitation the rights
to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.'''


def translate(go: str) -> str:
    """A Go (RE2) regex as the Python regex that matches the same (under re.ASCII)."""
    go = go.replace("[[:alnum:]]", "[0-9A-Za-z]").replace("\\z", "\\Z")
    out: list[str] = []
    closes = [0]  # per open group (the whole pattern first): `)` owed by the flags scoped in it
    i, n, in_class = 0, len(go), False
    while i < n:
        c = go[i]
        if c == "\\":
            out.append(go[i:i + 2])
            i += 2
            continue
        if in_class:
            if c == "]":
                in_class = False
            out.append("\\[" if c == "[" else c)
        elif c == "[":
            in_class = True
            out.append(c)
            if go[i + 1:i + 2] == "^":
                out.append("^")
                i += 1
            if go[i + 1:i + 2] == "]":  # a `]` first in a class is a literal
                out.append("\\]")
                i += 1
        elif go.startswith("(?i)", i) and i > 0:
            out.append("(?i:")  # Go: case-insensitive to the end of the enclosing group
            closes[-1] += 1
            i += 4
            continue
        elif c == "(":
            closes.append(0)
            out.append(c)
        elif c == ")":
            out.append(")" * closes.pop() + ")")
        else:
            out.append(c)
        i += 1
    return "".join(out) + ")" * closes[0]


_LEFT = re.compile(r"^((?:\(\?i\)|\(\?i:)*)\[\\w\.-\]\{0,50\}\?")


def _unprefixed(source: str) -> str:
    """Without the lazy `[\\w.-]{0,50}?` a generic rule opens with: it only widens the match to the
    left (never the secret's group), and it costs a try of 50 lengths at every position of the text."""
    while (m := _LEFT.match(source)) is not None:
        source = m.group(1) + source[m.end():]
    return source


def rules(config: dict) -> list[tuple]:
    found = []
    for rule in config["rules"]:
        if rule["id"] in SKIPPED or "path" in rule or "regex" not in rule or not rule.get("keywords"):
            continue
        allow = []
        for a in rule.get("allowlists", []):
            if "paths" in a:
                continue  # file paths: memcli scans text, not files
            allow.append((a.get("regexTarget", "secret"), tuple(translate(r) for r in a.get("regexes", [])),
                          tuple(s.lower() for s in a.get("stopwords", []))))
        source = _unprefixed(translate(rule["regex"]))
        re.compile(source, re.ASCII)
        found.append((rule["id"], source, int(rule.get("secretGroup", 0)), float(rule.get("entropy", 0)),
                      tuple(k.lower() for k in rule["keywords"]), tuple(allow)))
    return found


def render(config: dict) -> str:
    glob = config.get("allowlist", {})
    lines = [
        f'"""Secret rules vendored from gitleaks (config/gitleaks.toml, {config.get("minVersion", "")}).',
        "",
        "Generated by `python -m memcli.secrets.vendor GITLEAKS_TOML`: do not edit. The regexes are",
        "translated from Go's syntax (memcli/secrets/vendor.py). gitleaks' licence:",
        "",
        *NOTICE.splitlines(),
        '"""',
        "",
        "# (id, regex, secret group (0: the first group that matched), min entropy, keywords,",
        "#  allowlists: (target secret|match|line, regexes, stopwords))",
        "RULES: tuple[tuple, ...] = (",
    ]
    lines += [f"    {r!r}," for r in rules(config)]
    lines += [")", "", "ALLOW_REGEXES: tuple[str, ...] = ("]
    lines += [f"    {translate(r)!r}," for r in glob.get("regexes", [])]
    stopwords = tuple(s.lower() for s in glob.get("stopwords", []))
    lines += [")", f"STOPWORDS: tuple[str, ...] = {stopwords!r}", ""]
    return "\n".join(lines)


if __name__ == "__main__":
    TARGET.write_text(render(tomllib.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))), encoding="utf-8")
