"""pytest setup shared by ``tests/`` and the demo notebooks nbval checks."""

from __future__ import annotations

import os

import pytest

# nbval drops update_display_data (a run's output is updated when the run stops); --notebook-venv
# runs the notebooks' kernels in make lab's virtualenv.
pytest_plugins = ("tests.support.nbval_displays", "tests.support.notebook_kernel")


def pytest_configure(config: pytest.Config) -> None:
    from deepnb.models.resolve import online_environment

    # The suite is offline: no key or model choice from the developer's shell reaches a test,
    # a kernel it starts, or a notebook.
    for name in online_environment():
        os.environ.pop(name, None)
