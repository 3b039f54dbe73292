"""Shipping what the notebook built: an agent written as an Agent Server app (:mod:`.deploy`),
served by ``langgraph dev`` (:mod:`.serve`), and a thread exported as a notebook that opens
without a kernel (:mod:`.exporting`, bounded by :mod:`.export_limits`).
"""
