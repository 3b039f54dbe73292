"""Real-time collaboration (``jupyter-collaboration``) on or off for the browser tests' JupyterLab.

The test extra installs jupyter-collaboration, whose server extensions (``jupyter_server_ydoc``,
``jupyter_server_fileid``) and lab extensions are enabled wherever it is installed. It changes how
JupyterLab opens, runs and saves every notebook: the notebook is a shared document that the server
loads and saves, and the extension replaces JupyterLab's own file browser and cell executor
(``disabledExtensions`` in its package metadata). So the test server has it off unless a test asks:
:func:`write_config` writes a configuration folder (put on ``JUPYTER_CONFIG_PATH``, which outranks
the environment's) that either disables both halves, server and lab, as if the package were not
installed (JupyterLab then also keeps the plugins the extension would have replaced), or turns
collaboration on with its databases in the server's state folder, never in the notebooks' root or
the user's data folder.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

SERVER_EXTENSIONS = ("jupyter_server_ydoc", "jupyter_server_fileid")
LAB_EXTENSIONS = ("@jupyter/docprovider-extension", "@jupyter/collaboration-extension")
SAVE_DELAY = 1.0
"""Seconds of quiet after a change before the collaboration server saves the shared notebook."""


def installed() -> bool:
    """Whether jupyter-collaboration's server half is installed."""
    return importlib.util.find_spec("jupyter_server_ydoc") is not None


def write_config(config: Path, state: Path, *, collaborative: bool) -> None:
    """Write the configuration folder ``config`` for a test server whose runtime files are under
    ``state``: collaboration off, or on (``collaborative``)."""
    (config / "labconfig").mkdir(parents=True, exist_ok=True)
    if collaborative:
        server = {
            "YDocExtension": {
                "disable_rtc": False,
                "document_save_delay": SAVE_DELAY,
                "session_store_path": str(state / "collaboration_sessions.json"),
            },
            "SQLiteYStore": {"db_path": str(state / "ystore.db")},
            "BaseFileIdManager": {"db_path": str(state / "file_id_manager.db")},
        }
        page: dict[str, object] = {}
    else:
        server = {"ServerApp": {"jpserver_extensions": dict.fromkeys(SERVER_EXTENSIONS, False)}}
        page = {"disabledExtensions": dict.fromkeys(LAB_EXTENSIONS, True)}
    (config / "jupyter_server_config.json").write_text(json.dumps(server, indent=1))
    (config / "labconfig" / "page_config.json").write_text(json.dumps(page, indent=1))


def in_page(page: Any) -> bool:
    """Whether the JupyterLab (or Notebook 7) ``page`` has collaboration on: its page config loads
    the collaborative document provider and does not disable it."""
    config = json.loads(page.locator("#jupyter-config-data").text_content() or "{}")
    loaded = {str(ext.get("name")) for ext in config.get("federated_extensions", [])}
    disabled = set(config.get("disabledExtensions", []))
    return LAB_EXTENSIONS[0] in loaded - disabled and str(config.get("disableRTC")).lower() != "true"
