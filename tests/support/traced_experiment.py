"""The experiment the trace tests send and read back, whatever exporter holds the spans: two rows,
two variants ("first" answers the first row right, "second" the second), two epochs, the exact
scorer; eight runs, ended."""

from __future__ import annotations

from pathlib import Path

import deepnb
from deepnb import scorers
from deepnb.many.experiment import Experiment
from tests.support.agents import scripted, unique
from tests.support.waiting import WAIT


def traced_experiment(tmp_path: Path, name: str) -> Experiment:
    """Run that experiment, named ``name``, its log under ``tmp_path``; return it once ended."""
    right = scripted(
        {
            "main": [
                {"match": "^q0$", "turns": [{"text": "a0"}]},
                {"match": ".*", "turns": [{"text": "wrong"}]},
            ]
        }
    )
    other = scripted({"main": [{"match": ".*", "turns": [{"text": "a1"}]}]})
    agent = unique(name)
    deepnb.agent(agent, right)
    experiment = deepnb.experiment(
        [{"q": "q0", "reference": "a0"}, {"q": "q1", "reference": "a1"}],
        agent=agent,
        variants={"first": right, "second": other},
        scorers=[scorers.exact],
        epochs=2,
        template="{q}",
        name=name,
        log=tmp_path / f"{name}.jsonl",
    )
    experiment.wait(WAIT)
    return experiment
