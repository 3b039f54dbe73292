"""Experiments: a dataset run by each variant of an agent, ``epochs`` times, every run scored.

:class:`~.experiment.Experiment` and ``deepnb.experiment`` live in :mod:`.experiment`; the
dataset (:mod:`.datasets`), the variants (:mod:`.variants`), calling scorers (:mod:`.scoring`),
prices (:mod:`.pricing`), the statistics (:mod:`.stats`) and the JSONL log (:mod:`.log`) each
have a module of their own. The scorers users pick from are
:mod:`deepnb.scorers`, plain functions beside the experiment.
"""
