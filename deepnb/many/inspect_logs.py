"""The samples of an Inspect AI log read as a dataset: an ``.eval`` log is a zip archive with a
``samples/{id}_epoch_{n}.json`` per sample and epoch (and ``header.json``, which says the
dataset's sample order). Read with the zipfile module within bounds (entries, bytes per sample,
bytes in all); Inspect compresses with Zstandard, which zipfile reads from Python 3.14 and the
``zstandard`` package (installed with LangSmith's client) reads before that.
"""

from __future__ import annotations

import io
import json
import struct
import sys
import zipfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from deepnb.core.errors import DeepnbError

MAX_SAMPLE_FILES = 1_000_000
"""Entries of an Inspect ``.eval`` archive read at most."""
MAX_SAMPLE_BYTES = 256 * 2**20
"""Uncompressed bytes of one ``.eval`` sample read at most."""
MAX_ARCHIVE_BYTES = 4 * 2**30
"""Uncompressed bytes of all the ``.eval`` samples read at most."""
ZSTD = 93
"""The zip compression method Inspect writes (Zstandard)."""
SAMPLE_KEYS = ("id", "input", "target", "metadata", "choices")
"""What a sample keeps as a dataset row (its answers and scores are the log's, not the dataset's)."""


def eval_samples(path: Path) -> list[dict[str, Any]]:
    """An Inspect ``.eval`` log's samples, the first epoch of each, in the dataset's order."""
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as exc:
        raise DeepnbError(f"{path} is not an Inspect .eval log (a zip archive): {exc}.") from None
    with archive:
        infos = [
            info
            for info in archive.infolist()
            if info.filename.startswith("samples/") and info.filename.endswith(".json")
        ]
        if len(infos) > MAX_SAMPLE_FILES:
            raise DeepnbError(f"{path} holds {len(infos)} samples: deepnb reads at most {MAX_SAMPLE_FILES}.")
        total = 0
        samples = []
        for info in infos:
            data = _member(archive, info, path) if info.file_size <= MAX_SAMPLE_BYTES else b""
            total += len(data)  # what was read, whatever the archive's directory says
            if info.file_size > MAX_SAMPLE_BYTES or len(data) > MAX_SAMPLE_BYTES or total > MAX_ARCHIVE_BYTES:
                raise DeepnbError(
                    f"{path}'s {info.filename} is too large to read (at most {MAX_SAMPLE_BYTES} bytes a "
                    f"sample and {MAX_ARCHIVE_BYTES} in all)."
                )
            samples.append(_json(data, f"{path}'s {info.filename}"))
        order = _sample_order(archive, path)
    kept = first_epochs(samples)
    if order:
        place = {str(sample_id): i for i, sample_id in enumerate(order)}
        kept.sort(key=lambda sample: place.get(str(sample.get("id")), len(place)))
    return kept


def first_epochs(samples: Iterable[Any]) -> list[dict[str, Any]]:
    """Each sample once (its first epoch: a log holds one per epoch), with :data:`SAMPLE_KEYS`."""
    first: dict[str, Mapping[str, Any]] = {}
    for sample in samples:
        if not isinstance(sample, Mapping):
            continue
        key = str(sample.get("id"))
        if key not in first or (sample.get("epoch") or 1) < (first[key].get("epoch") or 1):
            first[key] = sample
    return [{k: sample[k] for k in SAMPLE_KEYS if k in sample} for sample in first.values()]


def _sample_order(archive: zipfile.ZipFile, path: Path) -> list[Any]:
    """The sample ids in the dataset's order, as the log's header says (``[]`` where it doesn't)."""
    try:
        info = archive.getinfo("header.json")
    except KeyError:
        return []
    if info.file_size > MAX_SAMPLE_BYTES:
        return []
    header = _json(_member(archive, info, path), f"{path}'s header.json")
    spec = header.get("eval") if isinstance(header, Mapping) else None
    data = spec.get("dataset") if isinstance(spec, Mapping) else None
    ids = data.get("sample_ids") if isinstance(data, Mapping) else None
    return list(ids) if isinstance(ids, list) else []


def _member(archive: zipfile.ZipFile, info: zipfile.ZipInfo, path: Path) -> bytes:
    """One entry's bytes, at most :data:`MAX_SAMPLE_BYTES` (+1, so a larger one is seen)."""
    if info.compress_type != ZSTD or sys.version_info >= (3, 14):
        try:
            with archive.open(info) as handle:
                return handle.read(MAX_SAMPLE_BYTES + 1)
        except (NotImplementedError, zipfile.BadZipFile, OSError, EOFError) as exc:
            raise DeepnbError(f"{path}'s {info.filename} cannot be read: {exc}.") from None
    try:
        import zstandard  # noqa: PLC0415  # lazy: only an Inspect log before Python 3.14 needs it
    except ImportError:
        raise DeepnbError(
            f"{path} is compressed with Zstandard: pip install zstandard to read it on this Python."
        ) from None
    try:
        with path.open("rb") as handle:
            handle.seek(info.header_offset)
            head = handle.read(30)
            if len(head) < 30 or head[:4] != b"PK\x03\x04":
                raise DeepnbError(f"{path}'s {info.filename} is damaged (no local header).")
            name_length, extra_length = struct.unpack("<HH", head[26:30])
            handle.seek(info.header_offset + 30 + name_length + extra_length)
            raw = handle.read(min(info.compress_size, MAX_SAMPLE_BYTES + 1))
        reader = zstandard.ZstdDecompressor().stream_reader(io.BytesIO(raw), read_across_frames=True)
        return bytes(reader.read(MAX_SAMPLE_BYTES + 1))
    except (zstandard.ZstdError, OSError) as exc:
        raise DeepnbError(f"{path}'s {info.filename} cannot be read: {exc}.") from None


def _json(data: bytes, where: str) -> Any:
    try:
        return json.loads(data.decode("utf-8-sig", errors="replace"))
    except json.JSONDecodeError as exc:
        raise DeepnbError(f"{where} is not valid JSON ({exc.msg} at line {exc.lineno}).") from None
    except RecursionError:
        raise DeepnbError(f"{where} is nested too deeply to read: flatten its values.") from None
