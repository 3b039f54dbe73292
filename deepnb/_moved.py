"""Import paths of modules that moved when the package's folders became its layers.

``import deepnb.run`` and ``from deepnb.files import Files`` keep working: the old name is the
new module itself (the same object, so a patch through either name reaches both), with a
:class:`DeprecationWarning` that names where it lives now. Installed by ``import deepnb``; it
answers for the names in :data:`MOVED` alone, and costs nothing for any other import.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import warnings
from types import ModuleType

MOVED = {
    "deepnb.errors": "deepnb.core.errors",
    "deepnb._loop": "deepnb.core.loop",
    "deepnb.addresses": "deepnb.core.addresses",
    "deepnb.displayable": "deepnb.core.displayable",
    "deepnb.events": "deepnb.core.events",
    "deepnb.listeners": "deepnb.core.listeners",
    "deepnb.schema": "deepnb.core.schema",
    "deepnb.schema_ts": "deepnb.core.schema_ts",
    "deepnb.failures": "deepnb.core.failures",
    "deepnb.explain": "deepnb.core.explain",
    "deepnb.handles": "deepnb.core.handles",
    "deepnb.batch_inputs": "deepnb.core.batch_inputs",
    "deepnb.project": "deepnb.core.project",
    "deepnb.trust": "deepnb.core.trust",
    "deepnb.files.paths": "deepnb.core.file_paths",
    "deepnb.secrets": "deepnb.core.text.secrets",
    "deepnb.streamed": "deepnb.core.text.streamed",
    "deepnb.markup": "deepnb.core.text.markup",
    "deepnb.bidi": "deepnb.core.text.bidi",
    "deepnb.code_style": "deepnb.core.text.code_style",
    "deepnb.safe_display": "deepnb.core.text.safe_display",
    "deepnb.safe_regex": "deepnb.core.text.safe_regex",
    "deepnb.documents": "deepnb.core.text.documents",
    "deepnb.checkpoint": "deepnb.core.threads.checkpointers",
    "deepnb.serde": "deepnb.core.threads.serde",
    "deepnb.thread_locks": "deepnb.core.threads.locks",
    "deepnb.thread_reading": "deepnb.core.threads.reading",
    "deepnb.graph_input": "deepnb.core.graphs.inputs",
    "deepnb.graph_reading": "deepnb.core.graphs.reading",
    "deepnb.message_parts": "deepnb.core.graphs.messages",
    "deepnb.structured": "deepnb.core.graphs.structured",
    "deepnb.streaming": "deepnb.core.graphs.streaming",
    "deepnb.langsmith_inline": "deepnb.core.graphs.langsmith_inline",
    "deepnb.state": "deepnb.engine.state",
    "deepnb.tree": "deepnb.engine.tree",
    "deepnb.approvals": "deepnb.engine.approvals",
    "deepnb.interrupts": "deepnb.engine.interrupts",
    "deepnb.spec": "deepnb.engine.spec",
    "deepnb.gating": "deepnb.engine.gating",
    "deepnb.interpreter": "deepnb.engine.interpreter",
    "deepnb.anatomy": "deepnb.engine.anatomy",
    "deepnb.async_tasks": "deepnb.engine.async_tasks",
    "deepnb.card_text": "deepnb.engine.card_text",
    "deepnb.history": "deepnb.engine.history",
    "deepnb.recording": "deepnb.engine.recording",
    "deepnb.timeline": "deepnb.engine.timeline",
    "deepnb.files.rules": "deepnb.engine.files.rules",
    "deepnb.files.sources": "deepnb.engine.files.sources",
    "deepnb.files.watch": "deepnb.engine.files.watch",
    "deepnb.files.setup": "deepnb.engine.files.setup",
    "deepnb.run": "deepnb.session.run",
    "deepnb.workbench": "deepnb.session.workbench",
    "deepnb.local": "deepnb.session.local",
    "deepnb.agents": "deepnb.session.agents",
    "deepnb.building": "deepnb.session.building",
    "deepnb.config": "deepnb.session.config",
    "deepnb.claims": "deepnb.session.claims",
    "deepnb.batch": "deepnb.session.batch",
    "deepnb.comparing": "deepnb.session.comparing",
    "deepnb.exporting": "deepnb.session.exporting",
    "deepnb.files": "deepnb.session.files",
    "deepnb.files.files": "deepnb.session.files.files",
    "deepnb.files.changes": "deepnb.session.files.changes",
    "deepnb.files.hold": "deepnb.session.files.hold",
    "deepnb.remote": "deepnb.session.remote",
    "deepnb.remote.client": "deepnb.session.remote.client",
    "deepnb.remote.graph": "deepnb.session.remote.graph",
    "deepnb.remote.messages": "deepnb.session.remote.messages",
    "deepnb.remote.shapes": "deepnb.session.remote.shapes",
    "deepnb.remote.workbench": "deepnb.session.remote.workbench",
    "deepnb.evals": "deepnb.session.experiments",
    "deepnb.evals.datasets": "deepnb.session.experiments.datasets",
    "deepnb.evals.experiment": "deepnb.session.experiments.experiment",
    "deepnb.evals.log": "deepnb.session.experiments.log",
    "deepnb.evals.pricing": "deepnb.session.experiments.pricing",
    "deepnb.evals.record": "deepnb.session.experiments.record",
    "deepnb.evals.scoring": "deepnb.session.experiments.scoring",
    "deepnb.evals.stats": "deepnb.session.experiments.stats",
    "deepnb.evals.variants": "deepnb.session.experiments.variants",
    "deepnb.serving": "deepnb.session.serving.serve",
    "deepnb.deployment": "deepnb.session.serving.deploy",
    "deepnb.served_http": "deepnb.session.serving.served_http",
    "deepnb.tethered": "deepnb.session.serving.tethered",
    "deepnb.app_copy": "deepnb.session.serving.app_copy",
    "deepnb.real_folders": "deepnb.session.serving.real_folders",
    "deepnb.views.run_view": "deepnb.views.run.run_view",
    "deepnb.views.snapshot": "deepnb.views.run.snapshot",
    "deepnb.views.items": "deepnb.views.run.items",
    "deepnb.views.given": "deepnb.views.run.given",
    "deepnb.views.questions": "deepnb.views.run.questions",
    "deepnb.views.output_table": "deepnb.views.run.output_table",
    "deepnb.views.subagent_tree": "deepnb.views.run.subagent_tree",
    "deepnb.views.timeline_view": "deepnb.views.run.timeline_view",
    "deepnb.views.approval_pages": "deepnb.views.run.approval_pages",
    "deepnb.views.collapse": "deepnb.views.run.collapse",
    "deepnb.views.thread_preview": "deepnb.views.run.thread_preview",
    "deepnb.views.batch_view": "deepnb.views.batch.batch_view",
    "deepnb.views.batch_rows": "deepnb.views.batch.batch_rows",
    "deepnb.views.experiment_view": "deepnb.views.experiment.experiment_view",
    "deepnb.views.experiment_live": "deepnb.views.experiment.experiment_live",
    "deepnb.views.files_view": "deepnb.views.files.files_view",
    "deepnb.views.file_preview": "deepnb.views.files.file_preview",
}
"""Old module -> the module it is now."""


class _Alias(importlib.abc.Loader):
    """Loads an old name as the module it moved to."""

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        new = MOVED[spec.name]
        warnings.warn(f"{spec.name} is now {new}", DeprecationWarning, stacklevel=2)
        return importlib.import_module(new)

    def exec_module(self, module: ModuleType) -> None:
        """Nothing to run: the module was imported under its own name."""


class MovedFinder(importlib.abc.MetaPathFinder):
    """Finds the old names of moved modules (:data:`MOVED`), and only those."""

    def find_spec(
        self, fullname: str, path: object = None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in MOVED:
            return None
        return importlib.machinery.ModuleSpec(fullname, _Alias())


def install() -> None:
    """Put the finder first on ``sys.meta_path`` (once)."""
    if not any(isinstance(finder, MovedFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, MovedFinder())
