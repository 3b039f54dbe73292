"""The many-run kinds: sessions of sessions, built from runs of any session, local or served.

A batch (:mod:`.batch`, what ``Session.map`` starts) runs many inputs on one agent; a comparison
(:mod:`.comparing`) one prompt on several models; an experiment (:mod:`.experiment`) a dataset
by each variant, ``epochs`` times, every run scored. The dataset (:mod:`.datasets`), the variants
(:mod:`.variants`), calling scorers (:mod:`.scoring`), the scorers users pick from
(:mod:`.scorers`, public as ``deepnb.scorers``), prices (:mod:`.pricing`), the statistics
(:mod:`.stats`), the run records (:mod:`.record`) and the JSONL log (:mod:`.log`, its lines'
fields read by :mod:`.fields`; what its header records of each variant, and the check that a
resumed experiment is the same one, in :mod:`.provenance`) each have a module of their own; so
does the report to send (:mod:`.report`, its samples' data in :mod:`.report_data`).
"""
