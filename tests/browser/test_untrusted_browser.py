"""A freshly cloned demo notebook is untrusted: JupyterLab sanitizes its outputs, dropping each
snapshot's ``<style>``. The snapshots still read as they do trusted (in the light and the dark
theme): the run's box has its border, a tool card its bar, the answer its green bar and label,
a done todo its grey, the subagent tree its indent. Trusted, the stylesheet's theme colours win."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.conftest import RESEARCH
from tests.support.notebook_ui import dismiss_dialogs, expect, luminance, open_notebook, scroll_to

pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]

GREEN = "rgb(46, 160, 67)"  # the answer's plain colour (#2ea043), on light and dark alike
GREY = "rgb(136, 136, 136)"  # muted text and done todos (#888)

SHOWN = """(snapshot) => {
  const style = (selector, ...names) => {
    const element = selector ? snapshot.querySelector(selector) : snapshot;
    if (!element) return null;
    const computed = getComputedStyle(element);
    return Object.fromEntries(names.map((name) => [name, computed[name]]));
  };
  const output = snapshot.closest(".jp-OutputArea-output");
  return {
    styles: output.querySelectorAll("style").length,
    box: style(null, "borderTopWidth", "borderTopStyle", "borderRadius", "paddingLeft"),
    tool: style(".dnb-tool", "borderLeftWidth", "borderLeftStyle", "fontFamily"),
    answer: style(".dnb-final-answer", "borderLeftWidth", "borderLeftColor", "marginTop"),
    label: style(".dnb-final-label", "color", "fontWeight"),
    muted: style(".dnb-muted", "color"),
    todos: style(".dnb-todos", "listStyleType"),
    done: style('.dnb-todos li', "color"),
    tree: style(".deepnb-tree > ul", "paddingLeft", "listStyleType"),
    subtree: style(".deepnb-tree ul ul", "paddingLeft"),
    background: getComputedStyle(document.querySelector(".jp-Notebook")).backgroundColor,
    text: getComputedStyle(snapshot).color,
  };
}"""


THEME_GREEN = """() => {
  const probe = document.createElement("span");
  probe.style.color = "var(--jp-success-color1)";
  document.body.appendChild(probe);
  const colour = getComputedStyle(probe).color;
  probe.remove();
  return colour;
}"""


def research_snapshot(page: Any, jupyter_server: Any, name: str) -> Any:
    jupyter_server.copy_notebook(RESEARCH, name)
    open_notebook(page, jupyter_server, name)
    snapshot = page.locator(".jp-OutputArea-output .deepnb-snapshot").first
    scroll_to(snapshot)
    expect(snapshot).to_be_visible()
    return snapshot


def check_reads_untrusted(shown: dict[str, Any]) -> None:
    assert shown["styles"] == 0, "the output kept its <style>: the notebook is not untrusted"
    assert shown["box"]["borderTopWidth"] == "1px" and shown["box"]["borderTopStyle"] == "solid"
    assert shown["box"]["borderRadius"] == "6px" and shown["box"]["paddingLeft"] == "12px"
    assert shown["tool"]["borderLeftWidth"] == "3px" and shown["tool"]["borderLeftStyle"] == "solid"
    assert "monospace" in shown["tool"]["fontFamily"]
    assert shown["answer"]["borderLeftColor"] == GREEN and shown["answer"]["marginTop"] == "8px"
    assert shown["label"]["color"] == GREEN and shown["label"]["fontWeight"] == "600"
    assert shown["muted"]["color"] == GREY and shown["done"]["color"] == GREY
    assert shown["todos"]["listStyleType"] == "none" and shown["tree"]["listStyleType"] == "none"
    assert shown["tree"]["paddingLeft"] == "4px" and shown["subtree"] in (None, {"paddingLeft": "16px"})
    # the plain colours stand out from the background of either theme
    assert abs(luminance(shown["muted"]["color"]) - luminance(shown["background"])) > 0.3
    assert abs(luminance(shown["label"]["color"]) - luminance(shown["background"])) > 0.25


def test_an_untrusted_demo_notebook_reads_in_the_light_theme_and_trusted_its_stylesheet_wins(
    page: Any, jupyter_server: Any, artifact: Any
) -> None:
    snapshot = research_snapshot(page, jupyter_server, "untrusted-light.ipynb")
    shown = snapshot.evaluate(SHOWN)
    check_reads_untrusted(shown)
    assert luminance(shown["background"]) > 0.8
    snapshot.screenshot(path=str(artifact("untrusted-light.png")))

    page.keyboard.press("Control+Shift+C")
    page.keyboard.type("Trust Notebook")
    page.keyboard.press("Enter")
    dismiss_dialogs(page)  # "Trust this notebook?": yes
    expect(page.locator(".jp-OutputArea-output style").first).to_be_attached()
    shown = page.locator(".jp-OutputArea-output .deepnb-snapshot").first.evaluate(SHOWN)
    theme = page.evaluate(THEME_GREEN)
    assert shown["styles"] > 0 and theme != GREEN
    assert shown["answer"]["borderLeftColor"] == theme == shown["label"]["color"]  # the stylesheet's
    assert shown["box"]["borderTopWidth"] == "1px" and shown["tool"]["borderLeftWidth"] == "3px"


def test_an_untrusted_demo_notebook_reads_in_the_dark_theme(
    page: Any, jupyter_server: Any, dark: None, artifact: Any
) -> None:
    snapshot = research_snapshot(page, jupyter_server, "untrusted-dark.ipynb")
    assert page.evaluate("document.body.dataset.jpThemeLight") == "false"
    shown = snapshot.evaluate(SHOWN)
    check_reads_untrusted(shown)
    assert luminance(shown["background"]) < 0.3 and luminance(shown["text"]) > 0.6
    snapshot.screenshot(path=str(artifact("untrusted-dark.png")))
