# deepnb in marimo: an agent's live view, its files and an approval, offline (demo:quickstart,
# no API key). Open it with `marimo edit notebooks/marimo-quickstart.py`.

import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium")


@app.cell
def _():
    import marimo as mo

    import deepnb

    return deepnb, mo


@app.cell(hide_code=True)
def _(mo):
    mo.md("""
    # deepnb in marimo

    deepnb's Python API works in a marimo notebook as in Jupyter, and a run, a batch, a
    comparison, an experiment or a thread's files shows as its live view: the last line of a
    cell is enough. This notebook uses `demo:quickstart`, a replay script shipped with deepnb,
    so it runs offline with no API key; any `provider:model` string works the same way.
    """)
    return


@app.cell
def _(deepnb):
    task = "Write me a short brief on life in tide pools. Keep notes in a file as you go."
    notes = deepnb.agent("notes", model="demo:quickstart")
    run = notes.run(task, background=True)
    run
    return run, task


@app.cell(hide_code=True)
def _(mo):
    mo.md("""
    With `background=True` the cell ends at once and the view streams the run: its todo list,
    a card for every tool call, the answer. `run.wait()` waits for the end in Python, and
    `run.files`, the files the agent wrote, shows as a file browser:
    """)
    return


@app.cell
def _(run):
    run.wait()
    run.files
    return


@app.cell(hide_code=True)
def _(mo):
    mo.md("""
    ## Approvals

    With `interrupt_on`, the agent stops before the named tools run and asks. The run below
    stops before its first `write_file`: click **Approve** on the card and the same view goes
    on to the end (or decide in Python: `careful_run.pending[0].approve()`).
    """)
    return


@app.cell
def _(deepnb, task):
    careful = deepnb.agent("careful", model="demo:quickstart", interrupt_on={"write_file": True})
    careful_run = careful.run(task)
    careful_run
    return


if __name__ == "__main__":
    app.run()
