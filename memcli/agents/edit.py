"""Add, find and remove memcli's entries in one config file's text (JSON with comments, or TOML
through tomlkit, which keeps comments and layout), or write and remove a whole file memcli owns (an
agent's plugin module). Pure functions: text in, text out."""

from __future__ import annotations

import tomllib
from typing import Any

import tomlkit
from tomlkit.exceptions import TOMLKitError

from memcli.agents import jsonedit
from memcli.agents.targets import ConfigFile, Entry
from memcli.errors import ConfigError


class UnreadableConfig(ConfigError):
    """A config file memcli will not rewrite (not valid JSON/TOML, or an unexpected shape)."""


def _json_doc(cf: ConfigFile, text: str) -> jsonedit.Document:
    try:
        doc = jsonedit.Document.parse(text)
    except jsonedit.JsonSyntaxError as exc:
        raise UnreadableConfig(f"{cf.path}: not valid JSON ({exc}); fix it by hand, nothing was "
                               "changed") from None
    if doc.root is not None and doc.root.kind != "object":
        raise UnreadableConfig(f"{cf.path}: expected a JSON object at the top; nothing was changed")
    return doc


def _toml_doc(cf: ConfigFile, text: str) -> Any:
    try:
        return tomlkit.parse(text)
    except TOMLKitError as exc:
        raise UnreadableConfig(f"{cf.path}: not valid TOML ({exc}); fix it by hand, nothing was "
                               "changed") from None


def data(cf: ConfigFile, text: str) -> dict[str, Any]:
    if cf.fmt == "file":
        return {"text": text} if text else {}
    if cf.fmt == "toml":
        return _toml_doc(cf, text).unwrap()
    return _json_doc(cf, text).data or {}


def _container(cf: ConfigFile, tree: dict[str, Any], entry: Entry) -> Any:
    node: Any = tree
    for depth, key in enumerate(entry.path):
        if node is None:
            return None
        if not isinstance(node, dict):
            where = ".".join(entry.path[:depth])
            raise UnreadableConfig(f"{cf.path}: {where} is not an object; nothing was changed")
        node = node.get(key)
    want = list if entry.key is None else dict
    if node is not None and not isinstance(node, want):
        raise UnreadableConfig(f"{cf.path}: {'.'.join(entry.path)} is not a"
                               f"{'n array' if want is list else 'n object'}; nothing was changed")
    return node


def status(cf: ConfigFile, text: str) -> list[tuple[Entry, str]]:
    """Each entry as `installed`, `outdated` (as an earlier memcli wrote it), `modified` (memcli's,
    edited since) or `missing`, and each retired one still in the file as `retired`."""
    if cf.fmt == "file":
        return [(entry, _whole_state(entry, text)) for entry in cf.entries]
    tree = data(cf, text)
    out = [(entry, "retired") for entry in cf.retired
           if any(entry.is_ours(g) for g in _container(cf, tree, entry) or [])]
    for entry in cf.entries:
        found = _container(cf, tree, entry)
        if entry.key is not None:
            value = found.get(entry.key) if found is not None else None
            state = ("missing" if value is None else "installed" if value == entry.value
                     else "outdated" if value in entry.older else "modified")
        else:
            ours = [g for g in found or [] if entry.is_ours(g)]
            state = "missing" if not ours else ("installed" if entry.value in ours else "modified")
        out.append((entry, state))
    return out


def install(cf: ConfigFile, text: str) -> str:
    """`text` with every missing entry added, every outdated one replaced (edited ones are left
    alone) and the retired ones removed."""
    if cf.fmt == "file":
        return next((e.value for e, state in status(cf, text) if state in ("missing", "outdated")), text)
    text = drop_retired(cf, text)
    for entry, state in status(cf, text):
        if state == "outdated":
            text = _remove_member(cf, text, entry)
        elif state != "missing":
            continue
        if cf.fmt == "toml" and _top_level_value(entry):
            doc = _toml_doc(cf, text)  # tomlkit puts a bare key before the first [table]
            _toml_add(doc, entry)
            text = doc.as_string()
        elif cf.fmt == "toml":
            text = _toml_append(cf, text, entry)
        else:
            text = jsonedit.insert(_json_doc(cf, text), list(entry.path), entry.key, entry.value)
    return text


def uninstall(cf: ConfigFile, text: str) -> str:
    """`text` without memcli's entries; a hook group that also holds the user's own handlers
    keeps them and loses only memcli's. A file memcli writes whole is emptied when it is memcli's
    (it carries the marker: edited or not), and left alone when it is not."""
    if cf.fmt == "file":
        return "" if any(entry.marker in text for entry in cf.entries) else text
    return _remove_ours(cf, text, cf.entries + cf.retired)


def drop_retired(cf: ConfigFile, text: str) -> str:
    """`text` without the entries an earlier memcli wrote and this one no longer does."""
    return text if cf.fmt == "file" else _remove_ours(cf, text, cf.retired)


def _whole_state(entry: Entry, text: str) -> str:
    """A file memcli writes whole: `modified` covers a file of someone else's at that path too
    (install leaves it alone, uninstall as well)."""
    if not text:
        return "missing"
    return "installed" if text == entry.value else "outdated" if text in entry.older else "modified"


def _remove_ours(cf: ConfigFile, text: str, entries: tuple[Entry, ...]) -> str:
    for entry in reversed(entries) if cf.fmt == "toml" else entries:
        if cf.fmt == "toml":
            text = _toml_cut_block(text, entry)
        while (spot := _find_ours(cf, text, entry)) is not None:
            text = _remove(cf, text, *spot)
    return text


def _remove(cf: ConfigFile, text: str, path: list[str | int], index: Any) -> str:
    if cf.fmt == "toml":
        doc = _toml_doc(cf, text)
        _toml_remove(doc, path, index)
        return doc.as_string()
    return jsonedit.remove(_json_doc(cf, text), path, index)


def _remove_member(cf: ConfigFile, text: str, entry: Entry) -> str:
    spot = _find_ours(cf, text, entry)
    return text if spot is None else _remove(cf, text, *spot)


def _find_ours(cf: ConfigFile, text: str, entry: Entry) -> tuple[list[str | int], Any] | None:
    """(container path, key or index) of the next memcli item to remove, or None."""
    found = _container(cf, data(cf, text), entry)
    path: list[str | int] = list(entry.path)
    if found is None:
        return None
    if entry.key is not None:
        if entry.key not in found or (_top_level_value(entry) and found[entry.key] != entry.value):
            return None  # a setting of the user's own value is theirs, not memcli's
        return path, entry.key
    for i, group in enumerate(found):
        if entry.whole and entry.is_ours(group):
            return path, i
        mine = entry.handlers_ours(group) if isinstance(group, dict) else []
        if not mine:
            continue
        if len(mine) == len(group["hooks"]):
            return path, i
        return [*path, i, "hooks"], mine[-1]
    return None


def _top_level_value(entry: Entry) -> bool:
    """A plain setting at the top of the file (Codex's `mcp_optional_startup_grace_ms`)."""
    return not entry.path and entry.key is not None and not isinstance(entry.value, dict)


# ---- whole files --------------------------------------------------------------------------------

# ---- TOML ---------------------------------------------------------------------------------------

def _toml_value(value: Any) -> Any:
    if isinstance(value, dict):
        table = tomlkit.table()
        for k, v in value.items():
            table.add(k, _toml_value(v))
        return table
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        aot = tomlkit.aot()
        for v in value:
            aot.append(_toml_value(v))
        return aot
    return tomlkit.item(value)


def _toml_block(entry: Entry) -> str:
    doc = tomlkit.document()
    _toml_add(doc, entry)
    return doc.as_string()


def _toml_append(cf: ConfigFile, text: str, entry: Entry) -> str:
    """`text` with the entry as a block of its own at the end, after a blank line: the user's
    tables and the comments above them stay where they were. Where TOML forbids that (the
    table was written inline, `mcp_servers = {...}`), tomlkit inserts it instead."""
    sep = "" if not text else ("\n" if text.endswith("\n") else "\n\n")
    new = text + sep + _toml_block(entry)
    try:
        tomllib.loads(new)
        return new
    except tomllib.TOMLDecodeError:
        doc = _toml_doc(cf, text)
        try:
            _toml_add(doc, entry)
        except ValueError:  # tomlkit: an inline table cannot take a [table]
            raise UnreadableConfig(f"{cf.path}: {'.'.join(entry.path)} is written inline; turn it into "
                                   "[tables] or add memcli's entry by hand; nothing was changed") from None
        return doc.as_string()


def _toml_cut_block(text: str, entry: Entry) -> str:
    """`text` without the block `_toml_append` added (and the blank line before it), when it is
    still there unchanged; entries are cut in reverse order, so blocks come off the end."""
    block = _toml_block(entry)
    at = text.rfind(block)
    if at < 0 or (at > 0 and text[at - 1] != "\n"):
        return text
    start = at - 1 if at >= 2 and text[at - 2:at] == "\n\n" else at
    return text[:start] + text[at + len(block):]


def _toml_add(doc: Any, entry: Entry) -> None:
    node = doc
    for key in entry.path[:-1] if entry.key is None else entry.path:
        if key not in node:
            node.add(key, tomlkit.table(is_super_table=True))
        node = node[key]
    if entry.key is not None:
        node.add(entry.key, _toml_value(entry.value))
    elif entry.path[-1] in node:
        node[entry.path[-1]].append(_toml_value(entry.value))
    else:
        node.add(entry.path[-1], _toml_value([entry.value]))


def _toml_remove(doc: Any, path: list[str | int], index: Any) -> None:
    chain = [doc]
    for key in path:
        chain.append(chain[-1][key])
    container = chain[-1]
    del container[index]
    # containers left empty go too, up to (not including) the document
    for depth in range(len(path) - 1, -1, -1):
        if len(chain[depth + 1]) == 0:
            del chain[depth][path[depth]]
        else:
            break
