"""Experiments: a dataset run by each variant of an agent, ``epochs`` times, every run scored.

:mod:`deepnb.evals.experiment` holds :class:`~deepnb.evals.experiment.Experiment` and
``deepnb.experiment``; the dataset (:mod:`~deepnb.evals.datasets`), the variants
(:mod:`~deepnb.evals.variants`), calling scorers (:mod:`~deepnb.evals.scoring`), prices
(:mod:`~deepnb.evals.pricing`), the statistics (:mod:`~deepnb.evals.stats`) and the JSONL log
(:mod:`~deepnb.evals.log`) each have a module of their own. The scorers users pick from are
:mod:`deepnb.scorers`, plain functions beside the experiment.
"""
