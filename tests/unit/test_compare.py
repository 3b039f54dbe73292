"""``deepnb.compare``: one task on several models (or agents) at once, each on a new thread; the
Comparison's runs, records, table, DataFrame, stop, and its views; bad input in one line."""

from __future__ import annotations

import sys
from typing import Any

import pytest
from pydantic import BaseModel

import deepnb
from deepnb.core.errors import DeepnbError
from deepnb.many.comparing import Comparison
from deepnb.session import building
from deepnb.views.compare_view import CompareView, answers_html, comparison_static
from tests.support.agents import scripted, unique

WIDGET_MIME = "application/vnd.jupyter.widget-view+json"


def answering(text: str, **options: Any) -> Any:
    return scripted({"main": [{"text": text}]}, **options)


@pytest.fixture
def base() -> str:
    name = unique("base")
    deepnb.agent(name, answering("The base answer."))
    return name


def test_each_model_answers_on_its_own_thread_and_the_agent_is_unchanged(base: str) -> None:
    before = building.get(base)
    comparison = deepnb.compare(
        "Which is it?", models={"first": answering("First."), "second": answering("Second.")}, agent=base
    )
    assert isinstance(comparison, Comparison)
    comparison.wait(30)
    assert list(comparison.runs) == ["first", "second"]
    assert [run.result for run in comparison.runs.values()] == ["First.", "Second."]
    threads = {run.thread_id for run in comparison.runs.values()}
    assert len(threads) == 2
    assert building.get(base) is before
    assert not threads & {t.thread_id for t in before.threads()}  # the agent's threads: untouched


def test_records_table_and_dataframe(base: str) -> None:
    comparison = deepnb.compare(
        "Go", models={"a": answering("Alpha answer."), "b": answering("Beta.")}, agent=base
    ).wait(30)
    records = comparison.to_records()
    assert [r["model"] for r in records] == ["a", "b"]
    assert [r["result"] for r in records] == ["Alpha answer.", "Beta."]
    assert all(r["status"] == "done" and r["steps"] == 1 and r["error"] is None for r in records)
    assert all(r["tokens_in"] > 0 and r["tokens_out"] > 0 for r in records)
    assert "output" not in records[0]
    text = repr(comparison.table())
    assert text.splitlines()[0].split()[:3] == ["model", "status", "result"]
    assert "Alpha answer." in text and "Beta." in text
    frame = comparison.to_pandas()
    assert list(frame["model"]) == ["a", "b"]
    assert list(frame["result"]) == ["Alpha answer.", "Beta."]


class Verdict(BaseModel):
    winner: str
    score: int


def test_a_response_format_gives_every_column_an_output(base: str) -> None:
    def verdict(winner: str) -> Any:
        return scripted(
            {"main": [{"tool_calls": [{"name": "Verdict", "args": {"winner": winner, "score": 3}}]}]}
        )

    comparison = deepnb.compare(
        "Judge", models={"x": verdict("x"), "y": verdict("<y>")}, agent=base, response_format=Verdict
    ).wait(30)
    assert [r["output"] for r in comparison.to_records()] == [
        Verdict(winner="x", score=3),
        Verdict(winner="<y>", score=3),
    ]
    frame = comparison.to_pandas()
    assert list(frame["output.winner"]) == ["x", "<y>"]
    html = comparison.table()._repr_html_()
    assert "winner=&lt;y&gt;" in html and "<y>" not in html


def test_agents_can_be_compared_instead_of_models() -> None:
    first, second = unique("one"), unique("two")
    deepnb.agent(first, answering("From one."))
    deepnb.agent(second, answering("From two."))
    comparison = deepnb.compare("Hi", agents=[first, second]).wait(30)
    assert comparison.by == "agent"
    assert [r["agent"] for r in comparison.to_records()] == [first, second]
    assert [r["result"] for r in comparison.to_records()] == ["From one.", "From two."]
    run = comparison.runs[first]
    assert building.get(first).current_thread == run.thread_id  # its own agent's new thread


def test_stop_stops_every_run(base: str) -> None:
    slow = {"main": [{"text": "word " * 400}]}
    comparison = deepnb.compare(
        "Slow", models={"a": scripted(slow, delay=0.02), "b": scripted(slow, delay=0.02)}, agent=base
    )
    comparison.stop()
    comparison.wait(30)
    assert [run.status for run in comparison.runs.values()] == ["cancelled", "cancelled"]


def test_the_views_show_two_columns_and_the_table_escaped(base: str) -> None:
    comparison = deepnb.compare(
        "Go", models={"<a>": answering("Answer <one>."), "b": answering("Answer two.")}, agent=base
    ).wait(30)
    static = comparison_static(comparison)
    html = static["text/html"]
    assert html.count('class="dnb-compare-column"') == 2
    assert "&lt;a&gt;" in html and "<a>" not in html
    assert "Answer &lt;one&gt;." in html and "Answer <one>." not in html
    assert "Answer two." in static["text/plain"] and "== <a> ==" in static["text/plain"]
    bundle = comparison._repr_mimebundle_()
    assert WIDGET_MIME in bundle and bundle["text/html"] == html
    view = CompareView(comparison)
    assert len(view.views) == 2 and "Answer two." in view.table.value
    view.close()


@pytest.mark.parametrize(
    ("models", "said"),
    [
        (["demo:quickstart"], "at least two models"),
        (["demo:quickstart", "demo:quickstart"], "given twice"),
        (["demo:quickstart", "gpt"], "Malformed model 'gpt'"),
        ("demo:quickstart", "takes a list"),
    ],
)
def test_bad_models_are_one_line(base: str, models: Any, said: str) -> None:
    with pytest.raises(DeepnbError) as caught:
        deepnb.compare("Go", models=models, agent=base)
    assert said in str(caught.value) and "\n" not in str(caught.value)


def test_an_unknown_agent_is_one_line() -> None:
    for call in (
        lambda: deepnb.compare("Go", models=["demo:quickstart", "demo:research"], agent="nobody-here"),
        lambda: deepnb.compare("Go", agents=["nobody-here", "nor-here"]),
    ):
        with pytest.raises(DeepnbError) as caught:
            call()
        assert "No agent named 'nobody-here'" in str(caught.value) and "\n" not in str(caught.value)


def test_models_and_agents_together_are_refused() -> None:
    with pytest.raises(DeepnbError, match="either models"):
        deepnb.compare("Go", models=["demo:quickstart", "demo:research"], agents=["a", "b"])


def test_to_pandas_without_pandas_says_how_to_install(base: str, monkeypatch: pytest.MonkeyPatch) -> None:
    comparison = deepnb.compare("Go", models={"a": answering("A."), "b": answering("B.")}, agent=base).wait(
        30
    )
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(DeepnbError, match="needs pandas: pip install pandas"):
        comparison.to_pandas()


def test_an_attached_graph_cannot_change_its_model() -> None:
    name = unique("attached")
    graph = building.agent(unique("source"), answering("x")).graph
    deepnb.attach(graph, name)
    with pytest.raises(DeepnbError) as caught:
        deepnb.compare("Go", models=["demo:quickstart", "demo:research"], agent=name)
    assert "was attached as a compiled graph" in str(caught.value) and "agents=[...]" in str(caught.value)


def test_answers_stand_side_by_side_as_markdown_with_their_words_difference(base: str) -> None:
    comparison = deepnb.compare(
        "Go",
        models={
            "first": answering("The **tide** <b>rises</b> twice a day."),
            "same": answering("The  **tide** <b>rises</b>\ntwice a day."),
            "other": answering("The **tide** falls twice a day & night."),
        },
        agent=base,
    ).wait(30)
    html = comparison_static(comparison)["text/html"]
    answers = html[html.index('class="dnb-compare-answers"') :]
    assert answers.count('class="dnb-compare-answer"') == 3
    assert "<strong>tide</strong>" in answers  # Markdown
    assert "<b>rises</b>" not in answers and "&lt;b&gt;rises&lt;/b&gt;" in answers  # raw HTML escaped
    assert "<b>same</b>: the same words." in answers
    assert "<del>&lt;b&gt;rises&lt;/b&gt;</del><ins>falls</ins>" in answers
    assert "<del>day.</del><ins>day &amp; night.</ins>" in answers
    columns = answers.split('class="dnb-compare-answer"')[1:]
    assert (
        ">changed from first</div>" in columns[2] and "dnb-diff-label" not in columns[1]
    )  # "same": white space
    text = comparison_static(comparison)["text/plain"]
    assert "same: the same words as first" in text and "other: differs from first" in text
    view = CompareView(comparison)
    assert view.answers.value == answers_html(comparison) != ""
    view.close()


def test_no_answers_section_until_two_runs_answered(base: str) -> None:
    comparison = deepnb.compare(
        "Go", models={"a": answering("Only one."), "b": scripted({"main": [{"error": "broke"}]})}, agent=base
    ).wait(30)
    assert answers_html(comparison) == ""
    assert "dnb-compare-answers" not in comparison_static(comparison)["text/html"]


def test_a_word_diff_is_escaped_and_bounded() -> None:
    from deepnb.core.text.word_diff import MAX_WORDS, word_diff_html

    assert word_diff_html("a <x> b", "a <y> b") == "a <del>&lt;x&gt;</del><ins>&lt;y&gt;</ins> b"
    long = " ".join(["w"] * (MAX_WORDS + 10))
    assert "compared up to" in word_diff_html(long, long + " more")
