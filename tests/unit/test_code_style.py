"""Highlighted code follows the notebook's theme: every colour of the code stylesheet (live views,
snapshots, file previews) is a JupyterLab theme variable, with Pygments' light colour only as the
fallback where those variables don't exist."""

from __future__ import annotations

import re

from deepnb.core.text.markup import code_css
from deepnb.views.styles import file_style, snapshot_style


def test_every_code_colour_is_a_theme_variable_with_a_fallback() -> None:
    css = code_css(".deepnb")
    colours = re.findall(r"(?:color|background|border): ([^;}]+)", css)
    assert len(colours) > 40
    bare = [c for c in colours if "#" in c and "var(--jp-" not in c]
    assert not bare, bare
    assert ".deepnb .dnb-code { background: var(--jp-cell-editor-background, #f8f8f8)" in css
    assert ".deepnb .dnb-code .k { color: var(--jp-mirror-editor-keyword-color, #008000)" in css
    assert ".deepnb .dnb-code .s2 { color: var(--jp-mirror-editor-string-color, #BA2121)" in css
    comment = ".dnb-code .c1 { color: var(--jp-mirror-editor-comment-color, #3D7B7B); font-style: italic"
    assert comment in css


def test_static_snapshots_and_file_previews_use_the_same_rules() -> None:
    for style, scope in ((snapshot_style(), ".deepnb-snapshot"), (file_style(), ".deepnb-file")):
        assert f"{scope} .dnb-code .k {{ color: var(--jp-mirror-editor-keyword-color" in style
        assert "#f8f8f8; }" not in style.replace("var(--jp-cell-editor-background, #f8f8f8)", "")
