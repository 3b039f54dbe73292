"""The display package: everything deepnb shows in a notebook, and nothing else does.

- live views (widgets): ``run_view``, ``files_view`` (with ``bounds``, ``collapse``, ``messages``,
  ``throttle`` and ``assets`` for what they send the front-end);
- static HTML and text, each pair side by side: ``items`` (a transcript item of each kind),
  ``snapshot`` (a run), ``subagent_tree``, ``listings`` (files, todos, tables, interpreter
  globals, extensions), ``file_preview`` (a file's content), all styled by ``styles``;
- ``output``: a live view and its static form merged into one output;
- ``renderers``: how the engine's objects (run, files, tree, …) show, looked up through
  :mod:`deepnb.core.displayable`, so the engine never imports this package.
"""
