"""deepnb.core.addresses: a server URL split for requests, and the one form in which it is shown."""

from __future__ import annotations

import base64

import pytest

from deepnb.core.addresses import address, shown_url, shown_urls
from deepnb.core.errors import DeepnbError
from deepnb.core.text.secrets import redact


def test_credentials_become_basic_auth_and_the_query_parameters() -> None:
    where = address(
        "https://bob:p%40ss-w0rd-long@Agents.Example.com:8443/api/?team=a&api_key=k-0123456789#frag"
    )
    assert where.base == "https://agents.example.com:8443/api"
    assert where.params == (("team", "a"), ("api_key", "k-0123456789"))
    assert where.headers == {"Authorization": "Basic " + base64.b64encode(b"bob:p@ss-w0rd-long").decode()}
    assert where.shown == "https://agents.example.com:8443/api?team=a&api_key=[redacted]"
    assert redact("the key k-0123456789 and p@ss-w0rd-long") == "the key [redacted] and [redacted]"


def test_a_plain_url_is_kept_as_it_is() -> None:
    where = address("http://127.0.0.1:2024/")
    assert (where.base, where.params, dict(where.headers)) == ("http://127.0.0.1:2024", (), {})
    assert address("http://[::1]:2024").base == "http://[::1]:2024"


@pytest.mark.parametrize("url", ["127.0.0.1:2024", "ftp://host/", "http://", "http://[::1"])
def test_what_is_not_a_server_url_is_refused_in_one_line(url: str) -> None:
    with pytest.raises(DeepnbError, match="as a server URL") as caught:
        address(url)
    assert "\n" not in str(caught.value)


def test_credentials_and_an_authorization_header_are_refused() -> None:
    with pytest.raises(DeepnbError, match="pass one of them"):
        address("http://u:secret-pass@host", {"authorization": "Bearer x"})


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("http://u:pw@host:1/p?token=abc&x=1", "http://host:1/p?token=[redacted]&x=1"),
        ("http://token-only@host", "http://host"),
        (
            "https://host/?sig=s&X-Amz-Credential=c&code=z",
            "https://host?sig=[redacted]&X-Amz-Credential=[redacted]&code=[redacted]",
        ),
        ("http://u:pw@[::1/?token=t", "http://[::1/"),  # unparsable: still no credentials, no query
    ],
)
def test_shown_url_has_no_credentials(url: str, shown: str) -> None:
    assert shown_url(url) == shown


def test_shown_urls_cleans_every_url_in_a_message() -> None:
    text = "Client error '404' for url 'http://u:pw@h:1/threads?token=abc'; see https://docs.example/x"
    assert (
        shown_urls(text)
        == "Client error '404' for url 'http://h:1/threads?token=[redacted]'; see https://docs.example/x"
    )
