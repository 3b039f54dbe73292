"""Server URLs as requests need them and as deepnb shows them.

A URL given to deepnb (``deepnb.connect``, an async subagent's ``url``) may carry credentials:
``user:password@`` before the host, or a key in its query string (``?token=…``).
:func:`address` splits it into what every request is sent with: the base URL (no credentials, no
query), the query as parameters of every request, and the credentials as a basic-auth header.
:func:`shown_url` is the one form of a URL that any message, repr, listing, view or log shows:
without its credentials, and with the values of secret-named query parameters redacted. Both
register the secrets they find (:func:`deepnb.core.text.secrets.add_secret`), so no other text shows them.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from urllib.parse import parse_qsl, quote, unquote, urlencode, urlsplit, urlunsplit

from deepnb.core.errors import DeepnbError
from deepnb.core.text.safe_regex import SPACE, compile_bounded
from deepnb.core.text.secrets import REDACTED, add_secret, looks_secret

_SECRET_PARAMETER = re.compile(r"(sig|signature|session|jwt|code|pass)", re.IGNORECASE)
"""Query parameters whose value is a credential beyond the names :func:`looks_secret` knows."""
_USERINFO = compile_bounded(r"(//)[^/?#]*@")
_URL = compile_bounded(rf"\bhttps?://[^{SPACE}'\"<>]+", re.IGNORECASE)
"""Addresses in a text (an error's, a server's: matched by RE2, in linear time)."""


@dataclass(frozen=True)
class Address:
    """Where requests go: ``base`` (scheme, host, port and path only), the query ``params`` sent
    with every request, and the ``headers`` the URL's credentials became (basic auth)."""

    base: str
    params: tuple[tuple[str, str], ...] = field(default=(), repr=False)
    headers: Mapping[str, str] = field(default_factory=dict, repr=False)

    @property
    def shown(self) -> str:
        """The address as deepnb shows it (:func:`shown_url`)."""
        return shown_url(self.url)

    @property
    def url(self) -> str:
        """The address with its query, as one URL (never shown: it may hold a key)."""
        return f"{self.base}?{urlencode(self.params)}" if self.params else self.base


def secret_parameter(name: str) -> bool:
    """Whether the query parameter ``name`` holds a credential (``token``, ``api_key``, ``sig``…)."""
    return looks_secret(name) or bool(_SECRET_PARAMETER.search(name))


def address(url: str, headers: Mapping[str, str] | None = None) -> Address:
    """``url`` split for requests. Its ``user:password@`` becomes an ``Authorization: Basic``
    header (refused, in one line, when ``headers`` already authorize); a fragment is dropped."""
    try:
        parts = urlsplit(url.strip())
        host = parts.hostname
        port = parts.port
    except ValueError as exc:
        raise DeepnbError(f"Cannot use {shown_url(url)!r} as a server URL: {exc}.") from None
    if parts.scheme not in ("http", "https") or not host:
        raise DeepnbError(
            f"Cannot use {shown_url(url)!r} as a server URL: give one like http://127.0.0.1:2024 "
            "(http or https, and a host)."
        )
    params = tuple(parse_qsl(parts.query, keep_blank_values=True))
    for name, value in params:
        if secret_parameter(name):
            add_secret(value)
    netloc = f"[{host}]" if ":" in host else host
    netloc += f":{port}" if port is not None else ""
    base = urlunsplit((parts.scheme, netloc, parts.path.rstrip("/"), "", ""))
    found: dict[str, str] = {}
    if parts.username is not None or parts.password is not None:
        if any(name.lower() == "authorization" for name in headers or {}):
            raise DeepnbError(
                f"The URL {shown_url(url)!r} carries a user and password and the headers authorize too: "
                "pass one of them (a URL without user:password@, or no Authorization header)."
            )
        user, password = unquote(parts.username or ""), unquote(parts.password or "")
        token = base64.b64encode(f"{user}:{password}".encode()).decode("ascii")
        for secret in (password, token, f"{user}:{password}"):
            add_secret(secret)
        found["Authorization"] = f"Basic {token}"
    return Address(base, params, found)


def shown_url(url: str) -> str:
    """``url`` as deepnb shows it: no ``user:password@``, no fragment, and the values of
    secret-named query parameters as ``[redacted]``. The one display form of a server URL."""
    try:
        parts = urlsplit(url.strip())
        host = parts.hostname
        port = parts.port
    except ValueError:  # not a URL deepnb can read: shown without anything that looks like credentials
        return _USERINFO.sub(r"\1", url.strip()).split("?")[0].split("#")[0]
    netloc = "" if host is None else (f"[{host}]" if ":" in host else host)
    netloc += f":{port}" if port is not None else ""
    query = "&".join(
        f"{quote(name, safe='')}={REDACTED if secret_parameter(name) else quote(value, safe='')}"
        for name, value in parse_qsl(parts.query, keep_blank_values=True)
    )
    return urlunsplit((parts.scheme, netloc, parts.path.rstrip("/"), query, ""))


def shown_urls(text: str) -> str:
    """``text`` with every URL in it as :func:`shown_url` shows it (a library's message may
    name the URL a request went to, query and all)."""
    return _URL.sub(lambda found: shown_url(found.group(0)), text)
