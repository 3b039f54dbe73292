"""The engine: a run's state folded from events, the subagent tree, approvals and interrupts,
what agent to build, the interpreter, history, recordings and the timeline.

It knows nothing of runs as objects, workbenches, views or magics (see ARCHITECTURE.md)."""
