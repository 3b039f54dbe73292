"""Traces over OpenTelemetry: every run, model call, tool call and subagent as spans with the
OpenInference conventions, sent to an OTLP endpoint (Phoenix, Langfuse, any collector).

``settings`` reads what is asked (``deepnb.trace(...)``, ``deepnb.toml``'s ``[trace]``) and
imports no tracing library; ``switch`` turns tracing on and off and gives runs and experiments
their spans (a no-op while off); ``pipeline`` is the OpenTelemetry side, imported only once
tracing is on: the LangChain instrumentation, the bounded batch processor and the exporter that
redacts secrets and cuts long values before anything leaves the kernel.
"""
