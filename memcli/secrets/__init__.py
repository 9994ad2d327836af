"""The secret detector: what `extract` redacts before text leaves the machine, and what the
Linter's `secret` rule refuses to let into git.

Patterns are specific (a vendor prefix, a fixed shape, or a credential-looking key next to a
high-entropy value) so that ordinary code and prose do not trip them. Each vendor pattern names
literal hints (its prefixes): a pattern runs only when a hint occurs in the text, which keeps
redaction fast on megabytes of transcript that mostly hold no secret at all.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass


@dataclass(frozen=True)
class SecretMatch:
    kind: str
    start: int  # span of the secret value itself (what gets redacted)
    end: int

    def line(self, text: str) -> int:
        return text.count("\n", 0, self.start) + 1


@dataclass(frozen=True)
class _Pattern:
    kind: str
    source: str  # compiled on first use: most runs (one record on the commit path) need few
    group: int = 0  # the group holding the secret value (0: the whole match)
    hints: tuple[str, ...] = ()  # lower-case literals one of which must occur; () = always run
    check: str = ""  # "" | "value" (credential heuristics) | "token" (not a placeholder, mixed chars)
    # Lower-case literals one of which starts every match of a case-insensitive pattern. A
    # pattern that opens with a long alternation is slow to search for (the engine tries it at
    # every position); finding these literals with str.find and trying the pattern only there
    # gives exactly finditer's matches, several times faster.
    anchors: tuple[str, ...] = ()

    @property
    def regex(self) -> re.Pattern[str]:
        return _compiled(self.source)

    @property
    def folded(self) -> bool:
        """Case-insensitive: matched against the lower-cased text with a case-sensitive regex,
        several times faster than re.IGNORECASE (spans are the same when lengths are)."""
        return self.source.startswith("(?i)")

    def __iter__(self) -> Iterator[object]:
        # Older callers unpacked `_PATTERNS` rows as (kind, regex, group); keep that working.
        return iter((self.kind, self.regex, self.group))

    def scan(self, text: str, lowered: str) -> Iterator[re.Match[str]]:
        if self.folded and len(lowered) == len(text):
            regex = _compiled(self.source.removeprefix("(?i)"))
            if self.anchors:
                return _anchored(regex, lowered, self.anchors)
            return regex.finditer(lowered)
        return self.regex.finditer(text)


def _anchored(regex: re.Pattern[str], text: str, anchors: tuple[str, ...]) -> Iterator[re.Match[str]]:
    """`regex.finditer(text)` for a regex whose every match starts with one of `anchors`: the
    leftmost match at or after the previous one's end, tried only where an anchor starts."""
    starts: set[int] = set()
    for anchor in anchors:
        i = text.find(anchor)
        while i >= 0:
            starts.add(i)
            i = text.find(anchor, i + 1)
    pos = 0
    for start in sorted(starts):
        if start < pos:
            continue
        m = regex.match(text, start)
        if m is not None:
            yield m
            pos = max(m.end(), start + 1)


@functools.cache
def _compiled(source: str) -> re.Pattern[str]:
    return re.compile(source)


_Q = r"(?:\\?[\"'])?"  # an optional quote, possibly JSON-escaped (tool arguments logged as strings)
_CRED_KEY = (
    r"(?:password|passwd|passphrase|pwd|secret|token|api[_\-]?key|access[_\-]?key|private[_\-]?key|"
    r"client[_\-]?secret|auth[_\-]?key|account[_\-]?key|credentials?|[_\-]key)"
    r"(?:[_\-]?(?:key|base|value))?"
)
_PATTERNS: tuple[_Pattern, ...] = (
    _Pattern("private-key", (
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?"
        r"(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|\Z)"), hints=("private key",)),
    _Pattern("aws-access-key-id", r"\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b",
             hints=("akia", "asia", "abia", "acca")),
    _Pattern("aws-secret-access-key", (
        r"(?i)aws_?(?:secret_?access_?key|secret)\b\\?[\"']?\s*[:=]\s*\\?[\"']?([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])"),
        1, hints=("aws",)),
    _Pattern("github-token",
             r"\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b",
             hints=("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_")),
    _Pattern("anthropic-api-key", r"\bsk-ant-(?:api|admin|oat|sid)\d{2}-[A-Za-z0-9_\-]{20,}",
             hints=("sk-ant-",)),
    _Pattern("openai-api-key", (
        r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}T3BlbkFJ[A-Za-z0-9_\-]{20,}|"
        r"\bsk-(?:proj|svcacct|admin)-[A-Za-z0-9_\-]{40,}|\bsk-[A-Za-z0-9]{48}\b"), hints=("sk-",)),
    _Pattern("google-api-key", r"\bAIza[0-9A-Za-z_\-]{35}(?![0-9A-Za-z_\-])", hints=("aiza",)),
    _Pattern("google-oauth-token", r"\bya29\.[0-9A-Za-z_\-]{20,}", hints=("ya29.",)),
    _Pattern("google-oauth-secret", r"\bGOCSPX-[0-9A-Za-z_\-]{28}", hints=("gocspx-",)),
    _Pattern("slack-token", (
        r"\bxox[abposre]-(?:[0-9A-Za-z]+-){1,4}[0-9A-Za-z]{10,}|\bxapp-\d-[A-Z0-9]+-\d+-[a-f0-9]{20,}"),
        hints=("xox", "xapp-")),
    _Pattern("slack-webhook", r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/\-]{20,}",
             hints=("hooks.slack.com",)),
    _Pattern("stripe-key", r"\b(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,}|\bwhsec_[0-9A-Za-z]{24,}",
             hints=("k_live_", "k_test_", "whsec_")),
    _Pattern("huggingface-token", r"\bhf_[A-Za-z]{34}\b", hints=("hf_",)),
    _Pattern("gitlab-token", r"\bgl(?:pat|dt|rt|ptt)-[0-9A-Za-z_\-]{20,}",
             hints=("glpat-", "gldt-", "glrt-", "glptt-")),
    _Pattern("npm-token", r"\bnpm_[A-Za-z0-9]{36}\b", hints=("npm_",)),
    _Pattern("pypi-token", r"\bpypi-AgE[A-Za-z0-9_\-]{50,}", hints=("pypi-",)),
    _Pattern("sendgrid-key", r"\bSG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}\b", hints=("sg.",)),
    _Pattern("jwt", r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{10,}",
             hints=("eyj",)),
    _Pattern("bearer-token", r"(?i)\bbearer\s+([A-Za-z0-9_\-.~+/]{20,}=*)", 1,
             hints=("bearer",), check="token"),
    _Pattern("basic-auth", (
        r"(?i)\bauthorization\\?[\"']?\s*[:=]\s*\\?[\"']?basic\s+([A-Za-z0-9+/]{12,}={0,2})"),
        1, hints=("authorization",), check="token"),
    _Pattern("url-password", (
        r"\b[a-z][a-z0-9+.\-]{1,20}://[^\s:/@\"'<>]{1,64}:([^\s@/\"'<>]{3,128})@[^\s/\"'<>]+"), 1,
        hints=("://",), check="placeholder"),
    _Pattern("credential-assignment", (
        r"(?i)" + _CRED_KEY + _Q + r"\s*(?::=|=>|=|:)\s*(\\?[\"']?)([^\s\"',;)}\]\\`]{8,200})\1"), 2,
        hints=("pass", "pwd", "secret", "token", "key", "credential"), check="value",
        anchors=("pass", "pwd", "secret", "token", "api", "access", "private", "client", "auth", "account",
                 "credential", "_key", "-key")),
    _Pattern("credential-flag", (
        r"(?i)(?<![\w-])--(?:password|passwd|token|api-key|secret|client-secret)[ =](\\?[\"']?)"
        r"([^\s\"',;`\\]{8,200})\1"), 2, hints=("--",), check="value",
        anchors=("--password", "--passwd", "--token", "--api-key", "--secret", "--client-secret")),
)

# Values that look like placeholders, references or code, not secrets.
_PLACEHOLDER = re.compile(
    r"(?i)^(?:\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|<[^>]*>|\{\{.*\}\}|%\(?[a-z_]+\)?s?|x{4,}|\*{3,}|\.{3,}|"
    r"(?:your|my|the|some|example|dummy|sample|fake|test|changeme|placeholder|redacted|none|null|"
    r"true|false|undefined|password|secret|token|insert|replace|enter)[_\-a-z0-9]*|.*\[REDACTED[^\]]*\].*)$"
)
_CODEISH = re.compile(
    r"[()\[\]{}<>]|\$[{A-Za-z_]|^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+$|"
    r"^(?:os|env|process|self|config|settings|cls|this|args|kwargs|request|params|options)\b|^[/~.]"
)
_WORDS = re.compile(r"^[a-z]+(?:[-_.][a-z]+)*$")  # "proxy-handled", "read_only": words, not secrets


def _entropy(value: str) -> float:
    counts: dict[str, int] = {}
    for ch in value:
        counts[ch] = counts.get(ch, 0) + 1
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in counts.values())


def _classes(value: str) -> int:
    return sum((any(c.islower() for c in value), any(c.isupper() for c in value),
                any(c.isdigit() for c in value), any(not c.isalnum() for c in value)))


def _credential_value_ok(value: str) -> bool:
    """True when a `key = value` value looks like a real secret, not code, a word or a placeholder."""
    if _PLACEHOLDER.match(value) or _CODEISH.search(value) or _WORDS.match(value):
        return False
    if value.isdigit() or not any(c.isalnum() for c in value):
        return False
    return _classes(value) >= 2 and _entropy(value) >= 3.0


_PASSWORD_KEY = re.compile(r"(?i)pass(?:word|wd|phrase)?|pwd")


def _password_value_ok(value: str) -> bool:
    """Under a password key (`DB_PASSWORD=`, frontmatter `password:`) a human-chosen password
    counts though it repeats itself (`hunter2hunter2`): less entropy, still not a word, code or a
    placeholder."""
    if _PLACEHOLDER.match(value) or _CODEISH.search(value) or _WORDS.match(value):
        return False
    if value.isdigit() or not any(c.isalnum() for c in value):
        return False
    return _classes(value) >= 2 and _entropy(value) >= 2.5


def _passes(check: str, value: str, key: str = "") -> bool:
    if check == "value":
        return _credential_value_ok(value) or (bool(_PASSWORD_KEY.search(key)) and _password_value_ok(value))
    if check == "token":
        return not _PLACEHOLDER.match(value) and _classes(value) >= 2
    if check == "placeholder":
        return not _PLACEHOLDER.match(value)
    return True


_ALL_HINTS = tuple(sorted({h for p in _PATTERNS for h in p.hints}))  # every pattern has hints (tested)


def _trie(words: list[str]) -> str:
    """A regex matching the longest of `words` that starts at a position (a trie: one pass over
    the text finds them all, where 40-odd substring searches would read it 40-odd times)."""
    tree: dict[str, dict] = {}
    for word in words:
        node = tree
        for ch in word:
            node = node.setdefault(ch, {})
        node[""] = {}

    def emit(node: dict[str, dict]) -> str:
        branches = [re.escape(ch) + emit(child) for ch, child in sorted(node.items()) if ch]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        if "" in node:  # a word ends here: the longer words are tried first (greedy)
            return f"(?:{body})?"
        return body

    return emit(tree)


@functools.cache
def _hint_finder() -> tuple[re.Pattern[str], dict[str, frozenset[str]]]:
    # Each hint found stands for itself and every hint inside it (`sk-ant-` holds `sk-`): at one
    # position only the longest is reported, and all shorter ones starting there are its prefixes.
    inside = {h: frozenset(g for g in _ALL_HINTS if g in h) for h in _ALL_HINTS}
    return re.compile(_trie(list(_ALL_HINTS))), inside


def _hints_in(lowered: str) -> set[str]:
    """Every hint occurring in `lowered`: the same as testing `h in lowered` for each."""
    regex, inside = _hint_finder()
    present: set[str] = set()
    m = regex.search(lowered)
    while m is not None:
        present |= inside[m.group()]
        m = regex.search(lowered, m.start() + 1)  # every start position, overlaps included
    return present


def might_contain_secret(text: str) -> bool:
    """False only when no pattern can match: a cheap pre-filter (substring search only)."""
    lowered = text.lower()
    return any(h in lowered for h in _ALL_HINTS)


def find_secrets(text: str) -> Iterator[SecretMatch]:
    """Every secret in `text`, as non-overlapping spans in order."""
    lowered = text.lower()
    present = _hints_in(lowered)
    found: list[SecretMatch] = []
    for pat in _PATTERNS:
        if pat.hints and present.isdisjoint(pat.hints):
            continue
        for m in pat.scan(text, lowered):
            start, end = m.span(pat.group)
            if start < 0 or not _passes(pat.check, text[start:end], text[m.start():start]):
                continue
            found.append(SecretMatch(pat.kind, start, end))
    found.sort(key=lambda s: (s.start, -(s.end - s.start)))
    last_end = -1
    for match in found:
        if match.start >= last_end:
            last_end = match.end
            yield match


def redact(text: str) -> tuple[str, int]:
    """`text` with every secret replaced by `[REDACTED:<kind>]`, and how many were replaced."""
    parts: list[str] = []
    pos = count = 0
    for match in find_secrets(text):
        parts.append(text[pos : match.start])
        parts.append(f"[REDACTED:{match.kind}]")
        pos = match.end
        count += 1
    if not count:
        return text, 0
    parts.append(text[pos:])
    return "".join(parts), count
