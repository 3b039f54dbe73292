"""``--fail-under SCORER=VALUE``: thresholds a CI job holds an experiment to. A threshold is met
when every variant's mean score for that scorer is at least the value."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from deepnb.core.errors import DeepnbError
from deepnb.many.stats import VariantSummary


@dataclass(frozen=True)
class Threshold:
    """``scorer`` must average at least ``value`` in every variant."""

    scorer: str
    value: float


@dataclass(frozen=True)
class Miss:
    """A variant below a threshold (``mean`` ``None``: no run of it has that score)."""

    threshold: Threshold
    variant: str
    mean: float | None

    def line(self) -> str:
        got = "no score" if self.mean is None else f"{self.mean:.3f}"
        return f"{self.variant}: {self.threshold.scorer} {got} < {self.threshold.value:g}"


def parse(given: Iterable[str]) -> list[Threshold]:
    """``SCORER=VALUE`` options as thresholds; one line for the first malformed one."""
    found = []
    for text in given:
        name, sign, value = text.partition("=")
        try:
            number = float(value)
        except ValueError:
            number = float("nan")
        if not sign or not name.strip() or number != number:
            raise DeepnbError(f"--fail-under takes SCORER=VALUE, e.g. --fail-under exact=0.8, not {text!r}.")
        found.append(Threshold(name.strip(), number))
    return found


def check_names(thresholds: Sequence[Threshold], scorers: Iterable[str]) -> None:
    """Refuse a threshold on a scorer the experiment does not have (before any run)."""
    known = list(scorers)
    for threshold in thresholds:
        if threshold.scorer not in known:
            raise DeepnbError(
                f"--fail-under names no scorer of this experiment: {threshold.scorer!r} "
                f"(its scorers: {', '.join(known) or 'none'})."
            )


def misses(thresholds: Sequence[Threshold], variants: Sequence[VariantSummary]) -> list[Miss]:
    """Every (threshold, variant) pair below the threshold."""
    found = []
    for threshold in thresholds:
        for variant in variants:
            means = [s.mean for s in variant.scores if s.scorer == threshold.scorer]
            mean = means[0] if means else None
            if mean is None or mean < threshold.value:
                found.append(Miss(threshold, variant.variant, mean))
    return found
