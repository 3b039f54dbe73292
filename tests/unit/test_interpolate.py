"""``{name}`` interpolation of prompts."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from deepnb.core.errors import DeepnbError
from deepnb.magics.interpolate import interpolate

NS = {
    "x": 42,
    "city": "Lisbon",
    "obj": SimpleNamespace(attr="deep", inner=SimpleNamespace(value=3.5)),
    "_private": "p",
}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("{x}", "42"),
        ("Weather in {city} for {x} days", "Weather in Lisbon for 42 days"),
        ("{obj.attr} and {obj.inner.value}", "deep and 3.5"),
        ("{_private}", "p"),
        ("{{x}}", "{x}"),
        ("{{x}} is {x}", "{x} is 42"),
        ("a {{ b", "a { b"),
        ("{{", "{"),
        ('{"k": 1, "n": [1, 2]}', '{"k": 1, "n": [1, 2]}'),
        ('{"outer": {"inner": true}}', '{"outer": {"inner": true}}'),
        ("{ x }", "{ x }"),
        ("{1x}", "{1x}"),
        ("set() is {}", "set() is {}"),
        ("no braces", "no braces"),
    ],
)
def test_interpolate(text: str, expected: str) -> None:
    assert interpolate(text, NS) == expected


def test_values_are_not_interpolated_again() -> None:
    assert interpolate("{a}", {"a": "{x}", "x": "no"}) == "{x}"


def test_unknown_variable_names_it() -> None:
    with pytest.raises(DeepnbError) as info:
        interpolate("Summarise {report} for {city}", NS)
    message = str(info.value)
    assert "{report}" in message
    assert "'report'" in message
    assert "--no-interpolate" in message
    assert "{{report}}" in message


def test_unknown_attribute_names_it() -> None:
    with pytest.raises(DeepnbError, match=r"\{obj\.missing\}.*obj has no 'missing'"):
        interpolate("{obj.missing}", NS)


def test_unknown_root_of_dotted_name() -> None:
    with pytest.raises(DeepnbError, match="no variable 'nope'"):
        interpolate("{nope.attr}", NS)
