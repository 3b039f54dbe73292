"""Secrets never reach what deepnb shows: redaction of env values, key shapes and bearer tokens."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping

import pytest

from deepnb.core import events as ev
from deepnb.core.explain import failure_message as describe_failure
from deepnb.core.text.secrets import REDACTED, redact, redact_data
from deepnb.engine.state import RunState
from deepnb.views.run.snapshot import snapshot_bundle

# Not shaped like any known key: only the environment lookup can catch these.
PLAIN_SECRET = "q7Wm2Lp9Zx4Rt8Vn3Kd6"
PLAIN_TOKEN = "hf_ab12CD34ef56GH78ij90"


@pytest.fixture
def secret_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACME_API_KEY", PLAIN_SECRET)
    monkeypatch.setenv("MY_SERVICE_TOKEN_VALUE", PLAIN_TOKEN)


def test_env_values_of_secret_names_are_redacted(secret_env: None) -> None:
    text = f"key={PLAIN_SECRET}; token {PLAIN_TOKEN}!"
    assert redact(text) == f"key={REDACTED}; token {REDACTED}!"


def test_env_values_of_other_names_are_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEEPNB_TEST_COLOUR", "ultramarine")
    assert redact("the sky is ultramarine") == "the sky is ultramarine"


def test_short_env_values_are_not_redacted(monkeypatch: pytest.MonkeyPatch) -> None:
    # A 3-character "secret" would blank out ordinary words everywhere.
    monkeypatch.setenv("TINY_API_KEY", "abc")
    assert redact("abc def") == "abc def"


def test_longer_secret_redacted_first(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("A_API_KEY", "secret-value")
    monkeypatch.setenv("B_API_KEY", "secret-value-extended")
    assert redact("x secret-value-extended y") == f"x {REDACTED} y"


@pytest.mark.parametrize(
    "key",
    [
        "sk-proj-AbCdEf0123456789xyzXYZ",
        "sk-ant-api03-AbCdEfGhIjKlMnOp",
        "AIzaSyA1234567890abcdefghijklmn",
        "ghp_abcdefghijklmnopqrstuvwxyz0123",
        "lsv2_pt_abcdefghijklmnopqrstuvwx",
    ],
)
def test_key_shaped_strings_are_redacted(key: str) -> None:
    out = redact(f"Incorrect API key provided: {key}. Check it.")
    assert key not in out
    assert out == f"Incorrect API key provided: {REDACTED}. Check it."


def test_short_sk_words_are_kept() -> None:
    assert redact("use sk-learn or sk-1") == "use sk-learn or sk-1"


def test_bearer_tokens_are_redacted() -> None:
    out = redact("headers: Authorization: Bearer eyJhbGciOi.J9abc-def_123")
    assert out == f"headers: Authorization: Bearer {REDACTED}"
    assert redact("bearer abcdefgh12345") == f"bearer {REDACTED}"


def test_describe_failure_has_no_key(secret_env: None) -> None:
    exc = RuntimeError(
        f"Error code: 401 - Incorrect API key provided: {PLAIN_SECRET} (sk-proj-ABCDEFGHIJKLMNOP1234)\n"
        "second line of the traceback"
    )
    text = describe_failure(exc)
    assert PLAIN_SECRET not in text
    assert "sk-proj-ABCDEFGHIJKLMNOP1234" not in text
    assert text.startswith("RuntimeError: Error code: 401 - Incorrect API key provided: [redacted]")
    assert "second line" not in text
    assert "re-run the cell" in text
    state = RunState(agent="a", thread_id="t")
    state.apply(ev.RunFailed("main", text))
    bundle = snapshot_bundle(state)
    assert all(PLAIN_SECRET not in shown for shown in bundle.values())


def test_describe_failure_without_message() -> None:
    assert describe_failure(TimeoutError()).startswith("TimeoutError —")


def test_describe_failure_never_shows_part_of_a_secret(secret_env: None) -> None:
    exc = ValueError("x" * 470 + PLAIN_SECRET)  # the limit falls inside the secret
    assert PLAIN_SECRET[:12] not in describe_failure(exc)


def test_tool_results_are_redacted_in_state(secret_env: None) -> None:
    state = RunState(agent="a", thread_id="t")
    state.apply(ev.ToolCallStarted("main", "c1", "execute", {"command": "env"}))
    state.apply(ev.ToolCallFinished("main", "c1", "execute", f"ACME_API_KEY={PLAIN_SECRET}"))
    card = state.items[-1]
    assert PLAIN_SECRET not in card["result"]
    assert PLAIN_SECRET not in card["result_full"]
    assert card["result"] == f"ACME_API_KEY={REDACTED}"


def test_tool_args_are_redacted_in_state(secret_env: None) -> None:
    state = RunState(agent="a", thread_id="t")
    state.apply(
        ev.ToolCallStarted("main", "c1", "write_file", {"file_path": "/.env", "content": PLAIN_SECRET})
    )
    card = state.items[-1]
    assert PLAIN_SECRET not in card["args"]
    assert PLAIN_SECRET not in card["args_full"]


LONG_SECRET = "Zr8Tq2Wm5Yp1Xk7Lc4Nv9Hb3Gd6Fs0Ja2Ue5Io8R"  # 40 characters, no known key shape


def test_long_secret_in_tool_args_is_not_shown_in_part(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VAULT_SECRET", LONG_SECRET)
    state = RunState(agent="a", thread_id="t")
    state.apply(ev.ToolCallStarted("main", "c1", "http", {"auth": LONG_SECRET}))
    card = state.items[-1]
    assert LONG_SECRET not in card["args_full"]
    assert LONG_SECRET[:12] not in card["args"]


def test_redact_data_returns_what_holds_no_secret_as_it_is(secret_env: None) -> None:
    clean = ev.ToolCallStarted("main", "c1", "ls", {"path": "/", "depth": 2, "all": None})
    assert redact_data(clean) is clean
    dirty = ev.ToolCallStarted("main", "c1", "ls", {"path": "/", "key": PLAIN_SECRET})
    shown = redact_data(dirty)
    assert type(shown) is ev.ToolCallStarted and shown.args == {"path": "/", "key": "[redacted]"}


@dataclasses.dataclass
class _Pairs(Mapping[str, str]):
    """A dataclass that is also a mapping: read as a mapping, as before."""

    data: dict[str, str]

    def __getitem__(self, key: str) -> str:
        return self.data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.data)

    def __len__(self) -> int:
        return len(self.data)


@dataclasses.dataclass(frozen=True)
class _Note:
    text: str
    lines: tuple[str, ...] = ()


def test_redact_data_reads_odd_types_as_before(secret_env: None) -> None:
    assert redact_data(_Pairs({"a": PLAIN_SECRET})) == {"a": "[redacted]"}
    assert redact_data(_Note(f"x {PLAIN_SECRET}", ("a", PLAIN_SECRET))) == _Note(
        "x [redacted]", ("a", "[redacted]")
    )
    assert redact_data(f"BEARER {'t' * 12}") == "BEARER [redacted]"
