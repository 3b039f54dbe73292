"""Make docs/images/phoenix-trace-light.png: a traced run of the approvals demo in a local Phoenix
(the trace tests' own, from .venv-phoenix: make .venv-phoenix/.installed), shot with Playwright
on Chromium. Run from the repository root: python scripts/phoenix_screenshot.py [CHROMIUM]."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import deepnb
from deepnb.engine.tracing import switch
from tests.support import phoenix
from tests.support.servers import stop

OUT = Path(__file__).resolve().parents[1] / "docs" / "images" / "phoenix-trace-light.png"
PROJECT = "launch-plan"


def main(chromium: str) -> None:
    from playwright.sync_api import sync_playwright  # lazy: a test dependency

    server = phoenix.start(Path(tempfile.mkdtemp(prefix="deepnb-phoenix-")))
    try:
        deepnb.trace(server.url, project=PROJECT, delay=0.1)
        bench = deepnb.agent(
            "planner", "demo:approvals", interrupt_on={"write_file": True, "edit_file": True}
        )
        run = bench.run("Plan the launch")
        while run.status == "interrupted":
            for pending in run.pending:
                pending.approve()
            run.wait()
        switch.flush(30)
        spans = server.wait_for(PROJECT, switch.status().exported)
        project = next(p for p in server.get("/v1/projects")["data"] if p["name"] == PROJECT)
        trace = next(s for s in spans if not s["parent_id"])["context"]["trace_id"]
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=chromium, args=["--no-sandbox", "--headless"]
            )
            page = browser.new_page(viewport={"width": 1400, "height": 860})
            page.goto(f"{server.url}/projects/{project['id']}/traces/{trace}")
            page.get_by_text(f"run: {bench.name}").first.wait_for()
            page.get_by_text("Metadata", exact=True).first.wait_for(state="visible")  # its details
            page.wait_for_load_state("networkidle")
            page.screenshot(path=str(OUT))
            browser.close()
    finally:
        switch.turn_off()
        stop(server.process)
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "/usr/bin/chromium")
