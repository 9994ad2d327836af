"""The Linter's result cache: findings per record content, kept in the record store.

File-scope findings are a pure function of a record's path, its bytes, the lint config and
memcli's own code. They are kept in the store (memcli.store.cache) under the record's content key,
which the store knows from its freshness check, so an unchanged file is neither read nor checked
again, and a checkout that rewrites identical bytes stays cached while a one-byte edit does not.
The whole cache is dropped when the config or memcli's lint code changes (the fingerprint).
Workspace-wide results (the similar-slug groups) are kept the same way under a digest of their
inputs. It is a cache: any problem reading or writing it just means a cold run.
"""

from __future__ import annotations

import hashlib
import json

from memcli import __version__
from memcli.codekey import code_fingerprint
from memcli.config import LintConfig, as_dict
from memcli.lint.finding import Finding, Severity
from memcli.store import RecordStore
from memcli.store.cache import ScopeCache

_FORMAT = 4
LEGACY_FILE = "lint-cache.marshal"  # where versions before the record store kept the results
# Code whose change can change a verdict.
_CODE = ("lint", "records", "recordtext.py", "plainyaml.py", "anchors.py", "secrets", "provenance.py",
         "tokens.py", "skills", "slug.py", "workspace.py", "config.py", "lazy.py", "values.py", "__init__.py")


def fingerprint(config: LintConfig) -> str:
    return code_fingerprint(_CODE, f"{_FORMAT}:{__version__}:{json.dumps(as_dict(config))}").hex()


def _derived_key(name: str, inputs: bytes) -> bytes:
    return b"derived:" + name.encode() + b":" + hashlib.blake2b(inputs, digest_size=16).digest()


class ResultCache:
    """The Linter's entries of `store`, for this config."""

    def __init__(self, store: RecordStore, config: LintConfig) -> None:
        self.store = store
        self.entries = ScopeCache(store, "lint", fingerprint(config), legacy=LEGACY_FILE)

    def findings(self, path: str, key: bytes) -> list[Finding] | None:
        cached = self.entries.load(key)
        if not isinstance(cached, tuple):
            return None
        try:
            return [
                Finding(path, line, code, Severity(sev), msg, alias, field)
                for line, code, sev, msg, alias, field in cached
            ]
        except (TypeError, ValueError):  # an entry of another shape: check again
            return None

    def put_findings(self, key: bytes, findings: list[Finding]) -> None:
        rows = tuple((f.line, f.code, str(f.severity), f.message, f.alias, f.field) for f in findings)
        self.entries.dump(key, rows)

    def known_files(self) -> int:
        """How many record contents the cache holds findings of."""
        return self.entries.count()

    def preload(self) -> None:
        self.entries.preload()

    def derived(self, name: str, inputs: bytes) -> object | None:
        """A workspace-wide result cached under `name` for exactly these `inputs` (e.g. slug lists)."""
        return self.entries.load(_derived_key(name, inputs))

    def put_derived(self, name: str, inputs: bytes, value: object) -> None:
        self.entries.dump(_derived_key(name, inputs), value)

    def save(self, *, whole: bool) -> None:
        """Write the new entries; after a whole-workspace run, only what this run used is kept."""
        self.entries.save(whole=whole)
