"""What the served graphs do, in numbers and words (imported by scaleout_graph.py and the tests)."""

STEPS = 6
WORKER_STEP_SECONDS = 0.6
QUICK_STEPS = 3
QUICK_STEP_SECONDS = 0.2
WORKER_DONE = f"All {STEPS} steps are done."
PUBLISHED = "Published the report."
QUICK_DONE = f"Quick run: {QUICK_STEPS} steps done."
