"""Extension code written for Python 3.14's lazy annotations, loaded unchanged on 3.11–3.13.

Deep Agents Code's extensions annotate ``d: ExtensionAPI`` with the import under
``TYPE_CHECKING`` and no ``from __future__ import annotations``: on 3.14 the annotation is never
evaluated (PEP 649), on earlier versions it raises ``NameError`` when the ``def`` runs. deepnb
compiles an extension's own files (the file, a package's modules, an entry point's module and
its submodules) with the ``annotations`` future, the nearest earlier Pythons have: annotations
stay text until something asks for them.
"""

from __future__ import annotations
import __future__

import contextlib
import importlib.abc
import importlib.machinery
import sys
from collections.abc import Iterator, Sequence
from types import CodeType, ModuleType

LAZY = sys.version_info >= (3, 14)
"""This Python evaluates annotations lazily on its own: nothing to do."""


class LazyAnnotationsLoader(importlib.machinery.SourceFileLoader):
    """A source loader that compiles with ``from __future__ import annotations`` in effect,
    always from the source: a cached ``.pyc`` compiled without the future is never used, and
    none is written."""

    def get_code(self, fullname: str) -> CodeType:
        path = self.get_filename(fullname)
        flags = 0 if LAZY else __future__.annotations.compiler_flag
        code: CodeType = compile(self.get_data(path), path, "exec", flags=flags, dont_inherit=True)
        return code


class _Finder(importlib.abc.MetaPathFinder):
    """Finds the modules of one extension (a top-level name and what is under it) and loads
    their source with :class:`LazyAnnotationsLoader`."""

    def __init__(self, top: str) -> None:
        self.top = top

    def find_spec(
        self, fullname: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != self.top and not fullname.startswith(self.top + "."):
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or not isinstance(spec.loader, importlib.machinery.SourceFileLoader):
            return spec
        spec.loader = LazyAnnotationsLoader(fullname, spec.loader.path)
        return spec


def loader_for(name: str, path: str) -> importlib.abc.Loader:
    """The loader of an extension file imported by path."""
    return LazyAnnotationsLoader(name, path)


@contextlib.contextmanager
def lazy_annotations(top: str) -> Iterator[None]:
    """While it is open, the modules named ``top`` or under it compile with lazy annotations
    (those not imported yet: a module already imported is not compiled again)."""
    if LAZY:
        yield
        return
    finder = _Finder(top)
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        with contextlib.suppress(ValueError):
            sys.meta_path.remove(finder)
