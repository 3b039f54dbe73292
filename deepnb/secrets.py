"""Keep secrets out of anything deepnb shows or saves."""

from __future__ import annotations

import os
import re

_SECRET_NAME = re.compile(r"(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH)", re.IGNORECASE)
_KEY_SHAPES = re.compile(
    r"\b(sk-[A-Za-z0-9_\-]{12,}|sk-ant-[A-Za-z0-9_\-]{12,}|AIza[0-9A-Za-z_\-]{20,}"
    r"|ghp_[A-Za-z0-9]{20,}|xox[abp]-[A-Za-z0-9\-]{10,}|lsv2_[A-Za-z0-9_]{20,})"
)
_BEARER = re.compile(r"(?i)(bearer\s+)[A-Za-z0-9._\-]{8,}")
REDACTED = "[redacted]"


_cache: dict[tuple, tuple[str, ...]] = {}


def _secret_values() -> tuple[str, ...]:
    """The values of secret-looking environment variables, longest first (recomputed only when
    the environment changes)."""
    data = getattr(os.environ, "_data", None)  # the raw mapping: cheap to snapshot
    key = tuple(data.items()) if isinstance(data, dict) else tuple(os.environ.items())
    if key not in _cache:
        _cache.clear()
        values = {v for name, v in os.environ.items() if _SECRET_NAME.search(name) and len(v) >= 6}
        _cache[key] = tuple(sorted(values, key=len, reverse=True))
    return _cache[key]


def redact(text: str) -> str:
    """``text`` with the values of secret-looking environment variables and key-shaped tokens
    replaced by ``[redacted]``."""
    for value in _secret_values():
        if value in text:
            text = text.replace(value, REDACTED)
    text = _KEY_SHAPES.sub(REDACTED, text)
    return _BEARER.sub(lambda m: m.group(1) + REDACTED, text)
