"""The ``%deepagent`` / ``%%deepagent`` magics: parse, then hand off to the engine."""
