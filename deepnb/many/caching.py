"""An experiment's model-call cache (``cache=``): a response is reused for the same model, its
parameters, the same messages and the same epoch, so a re-run of an unchanged experiment (after a
kernel restart too) makes no model call, while one epoch never reuses another's answer.

It is a LangChain :class:`~langchain_core.caches.BaseCache`, given to each variant's chat model
(``model.cache``): LangChain keys it by the prompt (the messages, their ids left out) and the
model's ``llm_string`` (its class, name and parameters, the tools bound to it); this cache adds
the epoch of the run making the call, told by its thread (each run is on a thread of its own,
assigned its epoch as it starts). A call on a thread no run of the experiment holds passes
through uncached.

On disk, each entry is one JSON file (``<folder>/<2 hex>/<sha256>.json``) holding the reply
messages in LangChain's message-dict shape: data, never code (no pickle). A file is read only up
to :data:`MAX_ENTRY_BYTES`, and one that is too big, not JSON, or not replies is ignored with a
warning and answered afresh (the new answer replaces it). An entry that cannot be written (disk
full, no permission) is a warning, and the run goes on uncached: nothing half written is left.
A hit spends nothing: its usage is counted as 0 tokens, and the run's record counts its calls
answered from the cache.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
import threading
import warnings
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from langchain_core.caches import BaseCache
from langchain_core.messages import AIMessage, message_to_dict, messages_from_dict
from langchain_core.outputs import ChatGeneration, Generation
from langgraph.config import get_config

from deepnb.core.errors import DeepnbError

FOLDER = Path(".deepnb") / "cache"
"""Where ``cache=True`` keeps the entries (beside the experiments' logs)."""
FORMAT = 1
MAX_ENTRY_BYTES = 4 << 20
"""The most of one entry's file that is read: a bigger file is someone else's, or broken."""


class CacheWarning(UserWarning):
    """A cache entry that cannot be used (it is ignored, and answered afresh)."""


class EpochCache(BaseCache):
    """Model responses on disk under ``folder``, keyed by model, parameters, messages and the
    epoch of the run asking; ``hits(thread)`` counts a run's calls it answered."""

    def __init__(self, folder: str | os.PathLike[str]) -> None:
        self.folder = Path(folder)
        self._lock = threading.Lock()
        self._epochs: dict[str, int] = {}
        self._hits: Counter[str] = Counter()

    # -- runs -------------------------------------------------------------------------------

    def assign(self, thread_id: str, epoch: int) -> None:
        """Make the calls on ``thread_id`` (a run's thread) those of ``epoch``."""
        with self._lock:
            self._epochs[thread_id] = epoch

    def hits(self, thread_id: str | None) -> int:
        """How many model calls on ``thread_id`` the cache answered."""
        with self._lock:
            return self._hits.get(thread_id or "", 0)

    def _caller(self) -> tuple[str, int] | None:
        """The thread and epoch of the run making the current model call (``None``: no run of
        the experiment)."""
        try:
            configurable = get_config().get("configurable") or {}
        except RuntimeError:  # called outside a graph
            return None
        thread = configurable.get("thread_id")
        with self._lock:
            epoch = self._epochs.get(thread) if isinstance(thread, str) else None
        return None if epoch is None or not isinstance(thread, str) else (thread, epoch)

    # -- BaseCache ----------------------------------------------------------------------------

    def lookup(self, prompt: str, llm_string: str) -> Sequence[Generation] | None:
        caller = self._caller()
        if caller is None:
            return None
        thread, epoch = caller
        found = self._read(self._path(prompt, llm_string, epoch))
        if found is not None:
            with self._lock:
                self._hits[thread] += 1
        return found

    def update(self, prompt: str, llm_string: str, return_val: Sequence[Generation]) -> None:
        caller = self._caller()
        if caller is None:
            return
        messages = [g.message for g in return_val if isinstance(g, ChatGeneration)]
        if not messages or len(messages) != len(return_val):
            return
        entry = {"format": FORMAT, "epoch": caller[1], "replies": [message_to_dict(m) for m in messages]}
        self._write(self._path(prompt, llm_string, caller[1]), entry)

    async def alookup(self, prompt: str, llm_string: str) -> Sequence[Generation] | None:
        return self.lookup(prompt, llm_string)  # here, not on an executor: the caller's context tells the run

    async def aupdate(self, prompt: str, llm_string: str, return_val: Sequence[Generation]) -> None:
        self.update(prompt, llm_string, return_val)

    def clear(self, **kwargs: Any) -> None:
        """Forget every entry under the folder."""
        for path in self.folder.glob("*/*.json"):
            path.unlink(missing_ok=True)

    # -- disk ---------------------------------------------------------------------------------

    def _path(self, prompt: str, llm_string: str, epoch: int) -> Path:
        key = json.dumps([FORMAT, llm_string, _keyed(prompt), epoch], ensure_ascii=False)
        digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()
        return self.folder / digest[:2] / f"{digest}.json"

    def _read(self, path: Path) -> list[Generation] | None:
        try:
            size = path.stat().st_size
        except OSError:
            return None
        if size > MAX_ENTRY_BYTES:
            return _ignored(path, f"it is {size:,} bytes, more than the {MAX_ENTRY_BYTES:,} read")
        try:
            data = json.loads(path.read_bytes())
        except (OSError, ValueError, RecursionError) as exc:
            return _ignored(path, f"not JSON ({type(exc).__name__})")
        replies = data.get("replies") if isinstance(data, Mapping) else None
        if not (isinstance(data, Mapping) and data.get("format") == FORMAT and isinstance(replies, list)):
            return _ignored(path, "not a deepnb cache entry")
        try:
            messages = messages_from_dict(replies)
        except Exception as exc:  # a malformed message dict: whatever LangChain raised for it
            return _ignored(path, f"its replies are not messages ({type(exc).__name__})")
        if not messages or not all(isinstance(m, AIMessage) for m in messages):
            return _ignored(path, "its replies are not a model's")
        return [ChatGeneration(message=_spent_nothing(m)) for m in messages if isinstance(m, AIMessage)]

    def _write(self, path: Path, entry: Mapping[str, Any]) -> None:
        try:
            text = json.dumps(entry, ensure_ascii=False, default=str)
        except (TypeError, ValueError):  # a reply that is not JSON-able is not kept
            return
        if len(text.encode("utf-8", "surrogatepass")) > MAX_ENTRY_BYTES:
            return
        made: str | None = None
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile(
                "w", encoding="utf-8", dir=path.parent, suffix=".tmp", delete=False
            ) as file:
                made = file.name
                file.write(text)
            os.replace(file.name, path)  # whole or not at all: a reader never sees half an entry
        except OSError as exc:  # the run goes on uncached: its answer is the model's, and logged
            if made is not None:
                with contextlib.suppress(OSError):
                    os.unlink(made)
            said = f"deepnb: a cache entry could not be written to {path} (the run goes on uncached): {exc}"
            warnings.warn(said, CacheWarning, stacklevel=2)


UNKEYED = frozenset({"usage_metadata"})
"""What of a prompt's messages does not key the cache: a model's earlier reply in the prompt holds
its usage, which a cache hit zeroes (it spent nothing), so a run's second call would otherwise
never match the first run's, and a multi-turn agent would miss after its first call."""


def _keyed(prompt: str) -> str:
    """``prompt`` (LangChain's serialized messages) without what does not key the cache."""
    try:
        messages = json.loads(prompt)
    except ValueError:
        return prompt
    return json.dumps(_without_usage(messages), sort_keys=True, ensure_ascii=False)


def _without_usage(value: Any) -> Any:
    if isinstance(value, list):
        return [_without_usage(item) for item in value]
    if isinstance(value, dict):
        kwargs = value.get("kwargs")
        if value.get("lc") == 1 and isinstance(kwargs, dict):
            kept = {k: _without_usage(v) for k, v in kwargs.items() if k not in UNKEYED}
            return {**value, "kwargs": kept}
        return {k: _without_usage(v) for k, v in value.items()}
    return value


def _spent_nothing(message: AIMessage) -> AIMessage:
    """``message`` as a cache hit gives it: its usage is 0 tokens (nothing was spent)."""
    if message.usage_metadata is None:
        return message
    usage = {"input_tokens": 0, "output_tokens": 0, "total_tokens": 0}
    return message.model_copy(update={"usage_metadata": usage})


def _ignored(path: Path, why: str) -> list[Generation] | None:
    """No answer from the entry at ``path`` (a miss), with a warning saying why."""
    warnings.warn(f"deepnb: the cache entry {path} is ignored: {why}.", CacheWarning, stacklevel=3)
    return None


def cache_folder(value: Any) -> Path | None:
    """``cache=`` as a folder: ``False``/``None`` (no cache), ``True`` (``.deepnb/cache``) or a path."""
    if value is None or value is False:
        return None
    if value is True:
        return FOLDER
    if isinstance(value, str | os.PathLike) and str(value).strip():
        return Path(value).expanduser()
    raise DeepnbError(
        f"cache= is True (model responses kept under {FOLDER}), a folder's path, or False, not {value!r}."
    )
