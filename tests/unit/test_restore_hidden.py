"""``approvals.restore_hidden``: a card's edited arguments get back the secrets the card hid."""

from __future__ import annotations

import json

import pytest

from deepnb.core.errors import DeepnbError
from deepnb.core.text.secrets import redact
from deepnb.engine.approvals import restore_hidden

SECRET = "sk-unit-0123456789abcdefghij"
ORIGINAL = {
    "url": "https://api.example.com",
    "headers": {"Authorization": f"Bearer {SECRET}"},
    "keys": ["public", SECRET],
    "retries": 3,
}


def shown() -> dict:
    return json.loads(redact(json.dumps(ORIGINAL)))


def test_untouched_hidden_values_come_back_anywhere_in_the_arguments() -> None:
    edited = {**shown(), "url": "https://api.example.org", "retries": 5}
    assert restore_hidden(json.dumps(edited), ORIGINAL) == {
        **ORIGINAL,
        "url": "https://api.example.org",
        "retries": 5,
    }


def test_a_changed_hidden_value_is_refused_and_named() -> None:
    edited = shown()
    edited["keys"][1] = "[redacted]-2"
    with pytest.raises(DeepnbError, match=r"^keys\[1\] held a secret the card hides"):
        restore_hidden(edited, ORIGINAL)


def test_new_values_and_text_that_is_not_json_pass_through() -> None:
    assert restore_hidden({"extra": "plain"}, ORIGINAL) == {"extra": "plain"}
    assert restore_hidden("{not json", ORIGINAL) == "{not json"  # normalize() explains it
    assert restore_hidden({"note": "[redacted] by hand"}, {"note": "[redacted] by hand"}) == {
        "note": "[redacted] by hand"
    }
