"""The front end (widgets/): the committed bundles in deepnb/_widgets/ are what their TypeScript
sources build to, the sources type-check, and the view logic's own tests pass (Node's test runner
against a DOM shim, run here so ``make test`` and CI run them).

These need Node.js and ``widgets/node_modules`` (``make test`` runs ``npm ci`` first). Without Node
they are skipped, saying so; with Node but without the packages they fail, saying what to run.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from deepnb.views.shared_code import VIEWS

ROOT = Path(__file__).resolve().parents[2]
WIDGETS = ROOT / "widgets"
BUILT = ROOT / "deepnb" / "_widgets"


def _npm() -> str:
    npm = shutil.which("npm")
    if npm is None or shutil.which("node") is None:
        pytest.skip("Node.js is not installed: the front end's build and tests need it (make test uses it)")
    if not (WIDGETS / "node_modules" / ".package-lock.json").is_file():
        pytest.fail("widgets/node_modules is missing: run `make test`, or `npm ci` in widgets/")
    return npm


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=WIDGETS, capture_output=True, text=True, timeout=240)


def test_committed_bundles_match_their_sources(tmp_path: Path) -> None:
    npm = _npm()
    built = _run(npm, "run", "--silent", "build", "--", "--outdir", str(tmp_path))
    assert built.returncode == 0, built.stdout + built.stderr
    fresh = sorted(p.name for p in tmp_path.iterdir())
    committed = sorted(p.name for p in BUILT.iterdir() if p.is_file())
    assert fresh == committed, "deepnb/_widgets/ holds other files than the build makes"
    stale = [name for name in fresh if (tmp_path / name).read_bytes() != (BUILT / name).read_bytes()]
    assert not stale, f"deepnb/_widgets/{stale} differ from a fresh build: run `make widgets` and commit them"


def test_sources_type_check() -> None:
    checked = _run(_npm(), "run", "--silent", "typecheck")
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_view_logic_passes_its_node_tests() -> None:
    """widgets/test/*.test.ts: helpers, transcript patching, tool cards, approval forms, the file tree,
    image click-to-load, bidi escaping and escaping, against happy-dom."""
    tested = _run(_npm(), "test")
    assert tested.returncode == 0, tested.stdout[-20_000:] + tested.stderr[-5_000:]
    assert "ℹ fail 0" in tested.stdout and "ℹ pass 0" not in tested.stdout, tested.stdout[-2_000:]


@pytest.mark.parametrize(("script", "styles"), sorted(VIEWS.values()))
def test_views_code_and_styles_stay_small(script: str, styles: str) -> None:
    """What a kernel sends once per kind of view, before any of the run's data: the minified bundle
    and stylesheets (the hand-written files were 105 KB for the run view). They travel in shared
    code parts of at most 48 KB each, not in every view's opening message
    (tests/security/test_view_code_once.py), so this is a budget on the code's growth, not on a
    message's size. The run view's is 99 KB with the thinking cards, steering and the box that
    continues a thread (96 KB was the budget before them), and 108.3 KB with the colours it falls
    back to outside JupyterLab, light and dark (marimo's themes); 127.4 KB with the Graph and Step
    state tabs (the agent's drawing, a step's state, its edits) and MCP content blocks by kind."""
    from deepnb.views.assets import asset, stylesheet

    code = asset(script).read_text(encoding="utf-8") + stylesheet(styles)
    assert len(json.dumps(code, ensure_ascii=False).encode()) <= 130 * 1024
