"""The gate ``%deepagent serve`` puts in front of ``langgraph dev``
(deepnb/ship/served_http.py): the
kernel's requests pass, a browser's (an Origin header) and a rebinding page's (another Host) do
not. (Against a real server: tests/security/test_serve_origins.py.)"""

from __future__ import annotations

import json

import pytest

from deepnb.ship import serve as serving
from deepnb.ship.served_http import refusal


def headers(**values: str) -> list[tuple[bytes, bytes]]:
    return [(name.replace("_", "-").encode(), value.encode()) for name, value in values.items()]


@pytest.mark.parametrize("host", ["127.0.0.1:2024", "localhost:8123", "[::1]:2024", "LOCALHOST", "api"])
def test_the_kernels_requests_pass(host: str) -> None:
    assert refusal(headers(host=host, user_agent="langgraph-sdk-py")) is None


@pytest.mark.parametrize(
    "sent",
    [
        {"host": "127.0.0.1:2024", "Origin": "http://evil.example"},
        {"host": "127.0.0.1:2024", "origin": "null"},
        {"host": "evil.example:2024"},
        {"host": "127.0.0.2:2024"},
        {},
    ],
)
def test_a_pages_requests_are_refused(sent: dict[str, str]) -> None:
    assert refusal(headers(**sent)) is not None


def test_the_served_langgraph_json_names_the_gate_and_allows_no_origin() -> None:
    settings = json.loads(json.dumps(serving.HTTP))
    assert settings == {
        "app": "deepnb.ship.served_http:app",
        "cors": {"allow_origins": [], "allow_credentials": False},
    }
