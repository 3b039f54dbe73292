"""``DEEPNB_DEMO_PACE`` scales the shipped demos' pause between tokens, and only theirs: a
scripted model of the user's keeps the delay its script gives; a value that is not a number of 0
or more is one line saying what to set."""

from __future__ import annotations

from pathlib import Path

import pytest

from deepnb.core.errors import DeepnbError
from deepnb.models import resolve

pytestmark = pytest.mark.paced  # the demos' own pace, which the suite otherwise turns off


def demo_delay() -> float:
    return resolve.resolve_model("demo:quickstart").script.delay


def test_unset_the_demo_keeps_its_own_pace_and_a_factor_scales_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(resolve.DEMO_PACE_ENV, raising=False)
    own = demo_delay()
    assert own > 0
    for given, factor in (("1", 1.0), ("0.5", 0.5), (" 2 ", 2.0), ("0", 0.0), ("", 1.0)):
        monkeypatch.setenv(resolve.DEMO_PACE_ENV, given)
        assert demo_delay() == pytest.approx(own * factor), given


def test_a_users_script_keeps_its_delay(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    script = tmp_path / "slow.yaml"
    script.write_text("delay: 0.25\nagents:\n  main:\n    - turns: [{text: hello}]\n", encoding="utf-8")
    monkeypatch.setenv(resolve.DEMO_PACE_ENV, "0")
    assert resolve.resolve_model(f"scripted:{script}").script.delay == 0.25


@pytest.mark.parametrize("given", ["fast", "-1", "nan", "inf", "1e400"])
def test_a_pace_that_is_not_a_number_of_0_or_more_says_what_to_set(
    monkeypatch: pytest.MonkeyPatch, given: str
) -> None:
    monkeypatch.setenv(resolve.DEMO_PACE_ENV, given)
    with pytest.raises(DeepnbError, match=r"DEEPNB_DEMO_PACE must be a number of 0 or more .*unset it"):
        demo_delay()
