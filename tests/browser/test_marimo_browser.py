"""deepnb in marimo: ``notebooks/marimo-quickstart.py`` opened with ``marimo edit --headless``.
marimo draws each widget in a shadow root, where the page's styles do not reach: the run view,
the file browser and the approval card are styled there all the same (read from their computed
styles), Approve on the card resumes the run to its end, and a run's static snapshot, shown as
marimo HTML, keeps its styles too."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import REPO, _free_port, traced_page, wait_until_ready
from tests.support.notebook_ui import RUN_TIMEOUT, expect

pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]

pytest.importorskip("marimo", reason="the test extra installs marimo: pip install -e '.[test]'")

NOTEBOOK = REPO / "notebooks" / "marimo-quickstart.py"
START_TIMEOUT = 60.0
SNAPSHOT_CELL = """
@app.cell
def _(mo, run):
    run.wait()
    mo.Html(run._repr_mimebundle_()["text/html"])
    return


if __name__ == "__main__":"""
CONFIG = """[runtime]
auto_instantiate = true

[display]
theme = "light"
"""
"""marimo's user settings for the test server: run every cell on opening, in the light theme."""

# The JupyterLab fallbacks of widgets/src/theme.css, which marimo (no JupyterLab variables) gets.
BORDER = "rgb(221, 221, 221)"
WHITE = "rgb(255, 255, 255)"
SUCCESS = "rgb(56, 142, 60)"
WARN = "rgb(245, 124, 0)"
DARK_BG = "rgb(30, 34, 32)"
DARK_FG = "rgb(232, 234, 233)"

STYLES = """(el) => {
  const cs = getComputedStyle(el);
  const root = el.getRootNode();
  return {
    shadow: root instanceof ShadowRoot,
    border: `${cs.borderTopWidth} ${cs.borderTopStyle} ${cs.borderTopColor}`,
    left: `${cs.borderLeftWidth} ${cs.borderLeftStyle} ${cs.borderLeftColor}`,
    background: cs.backgroundColor,
    color: cs.color,
    radius: cs.borderTopLeftRadius,
  };
}"""


class MarimoServer:
    """``marimo edit --headless`` on one notebook, in its own process group."""

    def __init__(self, url: str, log: Path, process: subprocess.Popen[bytes]) -> None:
        self.url = url
        self.log = log
        self.process = process

    def log_tail(self, lines: int = 60) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no server log)"

    def ready(self) -> bool:
        try:
            with urllib.request.urlopen(f"{self.url}/health", timeout=2) as answer:
                return bool(answer.status == 200)
        except (OSError, urllib.error.URLError):
            return False

    def stop(self) -> None:
        for sig, wait in ((signal.SIGTERM, 10), (signal.SIGKILL, 5)):
            if self.process.poll() is not None:
                return
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, sig)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=wait)


@pytest.fixture(scope="module")
def marimo_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MarimoServer]:
    """The notebook (a copy, with a cell showing the first run's static snapshot) served by
    ``marimo edit`` on a free port of 127.0.0.1, without a token; its settings, caches and home
    are the test's own."""
    root = tmp_path_factory.mktemp("marimo-root")
    home = tmp_path_factory.mktemp("marimo-home")
    (home / "config" / "marimo").mkdir(parents=True)
    (home / "config" / "marimo" / "marimo.toml").write_text(CONFIG)
    source = NOTEBOOK.read_text(encoding="utf-8")
    assert source.count('\n\nif __name__ == "__main__":') == 1
    notebook = root / "quickstart.py"
    notebook.write_text(source.replace('\n\nif __name__ == "__main__":', SNAPSHOT_CELL), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DEEPNB_", "MARIMO_"))}
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / "config"),
        XDG_CACHE_HOME=str(home / "cache"),
        XDG_STATE_HOME=str(home / "state"),
        XDG_DATA_HOME=str(home / "data"),
        PYTHONPATH=str(REPO),
        PYTHONUNBUFFERED="1",
    )
    port = _free_port()
    command = [
        sys.executable,
        "-m",
        "marimo",
        "edit",
        "--headless",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
    ]
    command += ["--no-token", "--skip-update-check", "--no-sandbox", str(notebook)]
    log = home / "server.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            command,
            cwd=root,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    server = MarimoServer(f"http://127.0.0.1:{port}", log, process)
    try:
        wait_until_ready(server, process, "marimo edit", START_TIMEOUT)
        yield server
    finally:
        server.stop()


def styles(locator: Any) -> dict[str, Any]:
    return dict(locator.evaluate(STYLES))


def test_views_are_styled_in_marimo_shadow_roots_and_an_approval_resumes_the_run(
    browser: Any, marimo_server: MarimoServer, request: pytest.FixtureRequest
) -> None:
    with traced_page(browser, marimo_server, request.node) as page:  # type: ignore[arg-type]
        page.goto(marimo_server.url)
        views = page.locator("marimo-anywidget .deepnb-run")  # Playwright's CSS reaches into shadow roots
        first, careful = views.nth(0), views.nth(1)

        expect(first).to_have_attribute("data-status", "done", timeout=RUN_TIMEOUT)
        frame = styles(first)
        assert frame == {
            "shadow": True,
            "border": f"1px solid {BORDER}",
            "left": f"1px solid {BORDER}",
            "background": WHITE,
            "color": "rgb(34, 34, 34)",
            "radius": "6px",
        }, frame
        assert styles(first.locator(".dnb-pill.dnb-status"))["color"] == SUCCESS
        # the stylesheet went to each shadow root, none to the page's head
        assert page.evaluate("() => document.head.querySelectorAll('style[id^=deepnb-code]').length") == 0

        files = page.locator("marimo-anywidget .deepnb-files")
        expect(files.locator('[role="treeitem"]')).to_have_attribute(
            "data-path", "/notes/", timeout=RUN_TIMEOUT
        )
        assert styles(files)["border"] == f"1px solid {BORDER}"

        expect(careful).to_have_attribute("data-status", "interrupted", timeout=RUN_TIMEOUT)
        assert styles(careful.locator(".dnb-pill.dnb-status"))["color"] == WARN
        card = careful.locator('.dnb-pending .dnb-approval[data-decided="false"]')
        expect(card).to_have_count(1)
        expect(card.locator(".dnb-approval-tool")).to_have_text("write_file")
        assert styles(card)["left"] == f"3px solid {WARN}"
        card.locator("button.dnb-approve").click()
        expect(careful).to_have_attribute("data-status", "done", timeout=RUN_TIMEOUT)
        expect(careful.locator(".dnb-pill.dnb-status")).to_have_css("color", SUCCESS)

        snapshot = page.locator(".deepnb-snapshot")
        expect(snapshot).to_contain_text("Life in a tide pool", timeout=RUN_TIMEOUT)
        shown = styles(snapshot)
        assert (shown["border"], shown["radius"]) == (f"1px solid {BORDER}", "6px"), shown

        # marimo's dark theme (the classes it puts on the body, whose colour scheme is then dark):
        # without JupyterLab's variables, the views' colours follow the scheme
        page.evaluate("() => document.body.classList.add('dark', 'dark-theme')")
        expect(first).to_have_css("background-color", DARK_BG)
        assert styles(first)["color"] == DARK_FG
