"""litellm, loaded on demand: without its surprise network fetch, telemetry or help banners, in a
background thread while a model command plans (`preload`), and as `MissingExtra` when the `llm`
extra is not installed. `memcli lint` and `--help` never load it."""

from __future__ import annotations

import importlib.util
import os
import re
import threading
from typing import Any

from memcli.llm.errors import INSTALL_LINE, MissingExtra
from memcli.progress import note

_import_lock = threading.Lock()
_preloading: threading.Thread | None = None


def preload() -> None:
    """Start importing litellm in the background (a no-op when it is not installed or already
    loading), so the seconds it takes overlap with the work that does not need it."""
    global _preloading
    with _import_lock:
        if _preloading is not None or importlib.util.find_spec("litellm") is None:
            return
        _preloading = threading.Thread(target=_quiet_import, name="memcli-litellm-import", daemon=True)
        _preloading.start()


def _quiet_import() -> None:
    try:
        litellm()
    except Exception:  # noqa: S110 - not here: the Gateway's own import reports it in the main thread
        pass


def litellm() -> Any:
    """Import litellm without its surprise network fetch, telemetry or help banners."""
    with _import_lock:
        os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        os.environ.setdefault("LITELLM_TELEMETRY", "False")
        loading = _preloading is not None and _preloading.is_alive()
    if loading and threading.current_thread() is not _preloading:
        note("loading the model library (litellm)…")
    # Outside the lock: Python's own per-module import lock makes a second importer wait for the
    # first (the background preload) and then reuse the module.
    try:
        import litellm as library  # here: seconds to import, and only model commands need it
    except ModuleNotFoundError as exc:
        if exc.name is None or exc.name.split(".")[0] != "litellm":
            raise  # litellm is there but broken: a bug to report, not a missing extra
        raise MissingExtra("extract and consolidate call a model through litellm, which is not "
                           f"installed: {INSTALL_LINE}") from None
    library.telemetry = False
    library.suppress_debug_info = True
    library.set_verbose = False
    library.callbacks, library.success_callback, library.failure_callback = [], [], []
    return library


def short(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    for prefix in ("litellm.", "OpenAIException - "):
        text = text.replace(prefix, "")
    return re.sub(r"^(?:\w+(?:Error|Exception|Timeout): )+", "", text)[:300]


def unreachable(exc: BaseException) -> bool:
    # litellm reports a refused connection as InternalServerError("Connection error.")
    return type(exc).__name__ == "APIConnectionError" or "connection error" in str(exc).lower()
