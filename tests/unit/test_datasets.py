"""``deepnb.dataset``: every format read from a real file in its own layout (tests/data/datasets),
the field mapping explicit and shown, a row an agent cannot be given refused before any model
call, and hostile datasets (1 MB cells, 100,000 rows, deep nesting) read within their bounds."""

from __future__ import annotations

import csv
import json
import sys
import uuid
import zipfile
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import deepnb
from deepnb.core.errors import DeepnbError
from deepnb.many import datasets as datasets_module
from deepnb.many import inspect_logs
from deepnb.many.datasets import Dataset, Row
from deepnb.views.dataset_view import CELL, SHOWN_ROWS
from tests.support.agents import scripted, unique
from tests.support.hostile_datasets import MEGABYTE, many_rows, megabyte_cells_csv, nested, nested_json
from tests.support.waiting import WAIT

DATA = Path(__file__).resolve().parents[1] / "data" / "datasets"


def pairs(data: Dataset) -> list[tuple[Any, Any]]:
    return [(row.given, row.reference) for row in data]


# -- CSV and TSV --------------------------------------------------------------------------------


def test_a_spreadsheet_export_keeps_its_four_rows_and_their_references() -> None:
    """BOM, CRLF rows, quoted cells with CRLF inside, U+2028 and a form feed: the csv module reads
    the file itself, so 4 rows stay 4 and each reference stays on its row."""
    raw = (DATA / "spreadsheet_export.csv").read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf") and b"\r\n" in raw and "\u2028".encode() in raw and b"\x0c" in raw
    with (DATA / "spreadsheet_export.csv").open(encoding="utf-8-sig", newline="") as handle:
        expected = [(r["question"], r["reference"]) for r in csv.DictReader(handle)]  # the csv module alone
    data = deepnb.dataset(DATA / "spreadsheet_export.csv")
    assert len(data) == 4 and pairs(data) == expected
    assert pairs(data)[1] == ("Write two lines:\r\nfirst, then second.", "first\r\nsecond")
    assert pairs(data)[2] == ("A line separator\u2028inside a cell.", "separated")
    assert pairs(data)[3][0].startswith('A form feed\x0cinside, and a "quoted" word')
    assert data.fields == ["question"]  # the BOM is not part of the first column's name
    assert data.mapping["input"] == "question" and data.mapping["reference"] == "reference"
    assert [row.fields["question"] for row in datasets_module.load(str(DATA / "spreadsheet_export.csv"))] == [
        q for q, _r in expected
    ]


def test_tsv_with_a_quoted_tab() -> None:
    data = deepnb.dataset(DATA / "questions.tsv")
    assert pairs(data) == [("Capital of Italy?", "Rome"), ("Tab\tinside", "yes")]
    assert data.mapping["reference"] == "answer"  # Hugging Face's answer column


def test_a_csv_row_with_more_cells_than_its_header_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "d.csv").write_text("q,reference\nq0,a0\nq1,a1,extra\n", encoding="utf-8")
    with pytest.raises(DeepnbError, match=r"d.csv line 3 has more cells than its header"):
        deepnb.dataset(tmp_path / "d.csv")


# -- JSON and JSONL -----------------------------------------------------------------------------


def test_jsonl_with_a_bom_and_a_raw_line_separator_in_a_string() -> None:
    raw = (DATA / "inspect_samples.jsonl").read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf") and "\u2028".encode() in raw
    data = deepnb.dataset(DATA / "inspect_samples.jsonl")
    assert len(data) == 2
    assert data[0].given == "What is 6 × 7?\u2028Answer with a number." and data[0].reference == "42"
    assert data[0].id == "s1"


def test_json_with_a_bom() -> None:
    data = deepnb.dataset(DATA / "inspect_samples.json")
    assert [row.id for row in data] == ["s1", "s2"] and data[1].reference == ["Tokyo", "tokyo"]


def test_a_bad_jsonl_line_is_one_line_naming_the_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_text('{"input": "q0"}\n\n{"input": "q1"\n', encoding="utf-8")
    with pytest.raises(DeepnbError, match=r"rows.jsonl line 3 is not valid JSON") as caught:
        deepnb.dataset(path)
    assert "\n" not in str(caught.value)


def test_a_json_object_that_is_no_dataset_is_refused(tmp_path: Path) -> None:
    (tmp_path / "d.json").write_text('{"rows": []}', encoding="utf-8")
    with pytest.raises(DeepnbError, match="a dataset is a list of rows, a promptfoo suite"):
        deepnb.dataset(tmp_path / "d.json")


# -- Parquet, DataFrame, Hugging Face -----------------------------------------------------------


def test_parquet() -> None:
    pytest.importorskip("pyarrow")  # the parquet extra (the floors' virtualenv leaves it out)
    data = deepnb.dataset(DATA / "planets.parquet")
    assert pairs(data) == [
        ({"question": "Largest planet?", "level": 1}, "Jupiter"),
        ({"question": "Smallest prime?", "level": 2}, "2"),
    ]
    assert deepnb.dataset(DATA / "planets.parquet", input="question")[0].given == "Largest planet?"


def test_parquet_without_pyarrow_says_how_to_get_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    said = r"^Reading Parquet: deepnb's 'parquet' extra is needed .*pip install 'deepnb\[parquet\]'"
    with pytest.raises(DeepnbError, match=said):
        deepnb.dataset(DATA / "planets.parquet")


def test_a_dataframe() -> None:
    frame = pd.DataFrame({"question": ["q0", "q1"], "answer": ["a0", "a1"]})
    data = deepnb.dataset(frame)
    assert pairs(data) == [("q0", "a0"), ("q1", "a1")] and data.format == "DataFrame"


class FakeHuggingFace:
    """The parts of a ``datasets.Dataset`` deepnb uses (it never imports ``datasets``)."""

    def __init__(self) -> None:
        self.features = {"question": "string", "answer": "string"}
        self.column_names = ["question", "answer"]

    def to_list(self) -> list[dict[str, Any]]:
        return [{"question": "q0", "answer": "a0"}, {"question": "q1", "answer": "a1"}]


def test_a_hugging_face_dataset_object_and_a_dataset_dict() -> None:
    data = deepnb.dataset(FakeHuggingFace())
    assert pairs(data) == [("q0", "a0"), ("q1", "a1")] and data.format == "huggingface"
    with pytest.raises(DeepnbError, match=r"DatasetDict \(splits: train, test\): give one split"):
        deepnb.dataset({"train": FakeHuggingFace(), "test": FakeHuggingFace()})


def test_a_hugging_face_dataset_saved_to_disk() -> None:
    """The folder ``datasets.Dataset.save_to_disk`` wrote (Arrow stream files), read with pyarrow."""
    pytest.importorskip("pyarrow")  # the parquet extra (the floors' virtualenv leaves it out)
    assert (DATA / "hf_saved" / "state.json").is_file()
    data = deepnb.dataset(DATA / "hf_saved")
    assert pairs(data) == [
        ("What is 2 + 2?", "4"),
        ("Capital of France?", "Paris"),
        ("Colour of the sky?", "blue"),
    ]
    assert [row.id for row in data] == ["q1", "q2", "q3"]


def test_a_saved_dataset_dict_names_its_splits(tmp_path: Path) -> None:
    (tmp_path / "dataset_dict.json").write_text('{"splits": ["train", "test"]}', encoding="utf-8")
    with pytest.raises(DeepnbError, match=r"DatasetDict \(splits: train, test\): give one split's folder"):
        deepnb.dataset(tmp_path)


# -- Inspect ----------------------------------------------------------------------------------


def test_an_inspect_eval_log_gives_its_samples_once_with_chat_inputs_as_messages() -> None:
    """The ``.eval`` Inspect wrote (2 samples × 2 epochs, zstd-compressed): each sample once, in
    the dataset's order, ``target`` as the reference, a chat input as real messages."""
    data = deepnb.dataset(DATA / "inspect_quiz.eval")
    assert data.format == "eval (inspect)" and len(data) == 2
    assert [row.id for row in data] == ["q1", "q2"]
    assert data[0].given == "What is 2 + 2?" and data[0].reference == "4"
    assert data[1].given == {
        "messages": [
            {"role": "system", "content": "Answer in one word."},
            {"role": "user", "content": "Capital of France?"},
        ]
    }
    assert data[1].reference == ["Paris", "paris"] and data[1].fields["metadata"] == {"topic": "geo"}


def test_a_deflated_eval_log_and_the_bound_on_a_sample(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An ``.eval`` compressed as older Inspect versions wrote it (deflate), and a sample larger
    than the bound: one line, nothing read past it."""
    path = tmp_path / "old.eval"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(
            "samples/2_epoch_1.json", json.dumps({"id": 2, "epoch": 1, "input": "b", "target": "B"})
        )
        archive.writestr(
            "samples/1_epoch_1.json", json.dumps({"id": 1, "epoch": 1, "input": "a" * 5000, "target": "A"})
        )
    assert [row.reference for row in deepnb.dataset(path)] == ["B", "A"]  # no header: the archive's order
    monkeypatch.setattr(inspect_logs, "MAX_SAMPLE_BYTES", 1000)
    with pytest.raises(DeepnbError, match=r"old.eval's samples/1_epoch_1.json is too large to read"):
        deepnb.dataset(path)


def test_a_chat_input_fills_a_template_as_lines() -> None:
    rows = deepnb.dataset(DATA / "inspect_samples.json").rows("Q: {input}")
    assert rows[1].given == "Q: system: Answer in one word.\nuser: Capital of Japan?"


def test_an_inspect_chat_input_reaches_the_agent_as_messages(tmp_path: Path) -> None:
    name = unique("chat")
    deepnb.agent(
        name=name,
        model=scripted(
            {"main": [{"match": "Japan", "turns": [{"text": "Tokyo"}]}, {"turns": [{"text": "?"}]}]}
        ),
    )
    experiment = deepnb.experiment(
        DATA / "inspect_samples.jsonl",
        agent=name,
        scorers=[deepnb.scorers.contains],
        log=tmp_path / "l.jsonl",
    ).wait(WAIT)
    record = experiment.records[(1, name, 0)]
    sent = [(m["role"], m["content"]) for m in record.messages if m["role"] in ("system", "user")]
    assert sent[:2] == [("system", "Answer in one word."), ("user", "Capital of Japan?")]
    assert record.result == "Tokyo"
    assert "{'role'" not in json.dumps(record.messages)  # never the Python repr of the list
    assert "row 1: system: Answer in one word." in repr(experiment)  # the matrix says the messages
    assert "{'messages'" not in repr(experiment) and "{&#x27;messages" not in experiment._repr_html_()


# -- promptfoo ---------------------------------------------------------------------------------


def test_a_promptfoo_yaml_suite() -> None:
    data = deepnb.dataset(DATA / "promptfoo_suite.yaml")
    assert data.format == "yaml (promptfoo)" and len(data) == 4
    rows = data.rows("{question} ({tone})")
    assert rows[0].given == "What is the capital of France? (plain)"  # defaultTest's vars under each test's
    assert [(row.reference, row.reference_type) for row in rows] == [
        ("paris", "icontains"),
        ("4", "equals"),
        ("(?i)bonjour|salut", "regex"),
        (None, None),
    ]
    assert [row.id for row in rows] == ["capital of France", "arithmetic", "a greeting in French", None]
    assert rows[1].metadata["assert"] == [{"type": "llm-rubric", "value": "Gives only the number"}]
    assert rows[2].metadata["category"] == "language"
    assert rows[3].metadata["assert"][0]["type"] == "javascript"  # kept and named, not guessed
    assert data.mapping["unread_asserts"] == ["javascript", "llm-rubric"]
    shown = repr(data)
    assert "llm-rubric" in shown and "javascript" in shown and "icontains ×1" in shown
    assert "id: description (3 rows), none (1 row)" in shown
    assert "the suite's prompts (not used: give template=): Answer briefly: {{question}}" in shown


def test_a_promptfoo_json_test_list() -> None:
    data = deepnb.dataset(DATA / "promptfoo_tests.json")
    assert [(row.given, row.reference, row.reference_type) for row in data] == [
        ("Greet the user.", "Hello", "starts-with"),
        ("Describe a tide pool.", "sea", "contains"),
    ]


def test_promptfoo_yaml_was_refused_as_json_before(tmp_path: Path) -> None:
    """A ``.yaml`` suite is read as YAML (safe_load: data, never code)."""
    (tmp_path / "s.yaml").write_text("tests:\n  - vars: {q: !!python/name:os.system}\n", encoding="utf-8")
    with pytest.raises(DeepnbError, match=r"s.yaml is not valid YAML"):
        deepnb.dataset(tmp_path / "s.yaml")


# -- LangSmith ----------------------------------------------------------------------------------


def test_a_langsmith_jsonl_export_and_example_objects() -> None:
    data = deepnb.dataset(DATA / "langsmith_export.jsonl")
    assert data.format == "jsonl (langsmith)"
    assert pairs(data) == [
        ("Which ocean is the largest?", {"answer": "The Pacific"}),
        ("How many legs does a spider have?", {"answer": "Eight"}),
    ]
    assert data[0].id == "6f1c2d3e-0000-4000-8000-0000000000a1" and data[0].metadata == {
        "dataset_split": ["base"]
    }
    named = deepnb.dataset(DATA / "langsmith_export.jsonl", reference="answer")
    assert [row.reference for row in named] == ["The Pacific", "Eight"]
    assert deepnb.dataset(DATA / "langsmith_export.jsonl", reference="outputs.answer")[1].reference == "Eight"

    class Example:  # a langsmith Example's shape
        def __init__(self, question: str) -> None:
            self.id = "e1"
            self.inputs = {"question": question}
            self.outputs = {"answer": "a"}
            self.metadata = None

    objects = deepnb.dataset([Example("q0")])
    assert objects[0].given == "q0" and objects[0].reference == {"answer": "a"} and objects[0].id == "e1"

    from langsmith import schemas

    example_id = uuid.UUID("6f1c2d3e-0000-4000-8000-0000000000b1")
    real = schemas.Example(
        id=example_id,
        dataset_id=uuid.uuid4(),
        inputs={"messages": [{"role": "user", "content": "Hi there"}]},
        outputs={"answer": "Hello"},
        metadata={"split": "test"},
    )
    read = deepnb.dataset([real], reference="answer")
    assert read[0].given == {"messages": [{"role": "user", "content": "Hi there"}]}  # a chat input
    assert (
        read[0].reference == "Hello"
        and read[0].id == str(example_id)
        and read[0].metadata == {"split": "test"}
    )


# -- mapping ---------------------------------------------------------------------------------


def test_fields_named_explicitly_with_dotted_paths() -> None:
    rows = [
        {"item": {"prompt": "q0", "gold": ["a0"]}, "key": "k0"},
        {"item": {"prompt": "q1", "gold": ["a1"]}, "key": "k1"},
    ]
    data = deepnb.dataset(rows, input="item.prompt", reference="item.gold.0", id="key")
    assert pairs(data) == [("q0", "a0"), ("q1", "a1")] and [row.id for row in data] == ["k0", "k1"]
    assert data.mapping["input"] == "item.prompt" and data.mapping["reference"] == "item.gold.0"
    again = deepnb.dataset(data, input="key")  # a Dataset mapped again: the options given now win
    assert again[0].given == "k0" and again[0].reference == "a0"


def test_a_named_field_no_row_has_names_the_fields() -> None:
    with pytest.raises(
        DeepnbError, match=r"^No row has a field 'prompt', which input= names: the rows' fields are q, c"
    ):
        deepnb.dataset([{"q": "q0", "c": "c0"}], input="prompt")
    with pytest.raises(DeepnbError, match=r"^Row 1 has no field 'q' \(input='q'\); its fields: x"):
        deepnb.dataset([{"q": "q0"}, {"x": "x1"}], input="q")
    with pytest.raises(DeepnbError, match=r"format='xml' is not one deepnb reads"):
        deepnb.dataset([{"q": 1}], format="xml")
    for text in ("What is 2 + 2?", "x" * 300, "a\0b"):  # one string, not a path: one line
        with pytest.raises(DeepnbError, match=r"not one string"):
            deepnb.dataset(text)


def test_the_view_says_the_mapping_and_escapes_every_cell() -> None:
    data = deepnb.dataset([{"question": "<script>alert(1)</script>", "target": "<b>x</b>"}] * 7)
    text = repr(data)
    assert text.splitlines()[:4] == [
        "Dataset: 7 rows from list (list)",
        "  input: 'question'",
        "  reference: 'target'",
        "  id: the row's number",
    ]
    assert "… 2 more rows" in text
    html = data._repr_html_() or ""
    assert "<script>" not in html and "&lt;script&gt;" in html and "&lt;b&gt;x&lt;/b&gt;" in html
    assert "reference</b>: &#x27;target&#x27;" in html


def test_the_log_header_records_the_mapping(tmp_path: Path) -> None:
    name = unique("mapped")
    deepnb.agent(name=name, model=scripted({"main": [{"turns": [{"text": "4"}]}]}))
    log = tmp_path / "l.jsonl"
    experiment = deepnb.experiment(
        [{"problem": "2 + 2?", "solution": "4", "n": 1}],
        agent=name,
        input="problem",
        reference="solution",
        log=log,
    ).wait(WAIT)
    header = json.loads(log.read_text(encoding="utf-8").splitlines()[0])
    assert header["dataset"]["input"] == "problem" and header["dataset"]["reference"] == "solution"
    assert experiment.plan.rows[0].given == "2 + 2?" and experiment.plan.rows[0].reference == "4"


# -- a row the agent cannot be given ---------------------------------------------------------


def test_a_row_without_an_input_is_refused_before_any_model_call(tmp_path: Path) -> None:
    """Several fields, no ``input`` field and no template: the agent would run with no prompt."""
    name = unique("unprompted")
    deepnb.agent(name=name, model=scripted({"main": [{"turns": [{"text": "done"}]}]}))
    log = tmp_path / "l.jsonl"
    rows = [{"question": "q0", "context": "c0", "target": "a0"}]
    with pytest.raises(DeepnbError) as caught:
        deepnb.experiment(rows, agent=name, log=log)
    message = str(caught.value)
    assert "\n" not in message and "(question, context)" in message and "input='FIELD'" in message
    assert deepnb.get(name).threads() == [] and not log.exists()
    chosen = deepnb.experiment(rows, agent=name, input="question", log=log).wait(WAIT)  # named: it runs
    assert chosen.plan.rows[0].given == "q0" and chosen.records[(0, name, 0)].result == "done"


def test_an_inspect_row_with_no_template_runs_its_input(tmp_path: Path) -> None:
    """``{"input": ..., "target": ...}`` gives the input as the prompt and the target as the
    reference (it ran with no prompt before)."""
    name = unique("inspected")
    deepnb.agent(
        name=name,
        model=scripted(
            {"main": [{"match": "^Capital", "turns": [{"text": "Paris"}]}, {"turns": [{"text": "?"}]}]}
        ),
    )
    experiment = deepnb.experiment(
        [{"input": "Capital of France?", "target": "Paris"}],
        agent=name,
        scorers=[deepnb.scorers.exact],
        log=tmp_path / "l.jsonl",
    ).wait(WAIT)
    record = experiment.records[(0, name, 0)]
    assert record.result == "Paris" and record.reference == "Paris" and record.scores["exact"].score == 1.0


# -- hostile -----------------------------------------------------------------------------------


def test_every_cell_a_megabyte(tmp_path: Path) -> None:
    data = deepnb.dataset(megabyte_cells_csv(tmp_path / "big.csv", rows=3))
    assert len(data) == 3 and [row.reference for row in data] == ["a0", "a1", "a2"]
    assert all(
        len(row.fields["question"]) == MEGABYTE and len(row.fields["context"]) == MEGABYTE for row in data
    )
    text, html = repr(data), data._repr_html_() or ""
    assert len(text) < 2_000 and len(html) < 20_000  # the view clips each cell to CELL characters
    assert all(len(line) < 3 * CELL + 40 for line in text.splitlines())
    named = deepnb.dataset([{"n" * MEGABYTE: "q", "reference": "a"}])  # a megabyte field name too
    assert len(repr(named)) < 2_000 and len(named._repr_html_() or "") < 20_000
    many = deepnb.dataset([{f"f{i}" + "x" * MEGABYTE: i for i in range(50)}])  # and fifty of them
    with pytest.raises(DeepnbError) as caught:
        many.rows("{nope}")
    assert len(str(caught.value)) < 1_500 and str(caught.value).endswith("(+30 more).")


@pytest.mark.volume
def test_a_hundred_thousand_rows_are_read_once_and_shown_by_their_first_few(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The work is bounded, not timed: every row is pulled once, mapped once; the view makes
    only the rows it shows."""
    pulled = [0]
    data = deepnb.dataset(many_rows(100_000, pulled))
    assert pulled == [100_000] and len(data) == 100_000
    made = [0]
    original = Dataset._row

    def counted(self: Dataset, *args: Any) -> Row:
        made[0] += 1
        return original(self, *args)

    monkeypatch.setattr(Dataset, "_row", counted)
    repr(data)
    data._repr_html_()
    assert made[0] == 2 * SHOWN_ROWS
    made[0] = 0
    rows = data.rows("Q: {question}")
    assert made[0] == 100_000 and rows[-1].given == "Q: q99999" and rows[-1].reference == "a99999"


def test_a_deeply_nested_field_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(DeepnbError, match=r"^Row 1's field 'tree' is nested more than 100 levels deep"):
        deepnb.dataset([{"input": "q0", "tree": [1]}, {"input": "q1", "tree": nested(100_000)}])
    (tmp_path / "deep.jsonl").write_text(
        '{"input": "q0"}\n{"input": ' + nested_json(100_000) + "}\n", encoding="utf-8"
    )
    with pytest.raises(DeepnbError, match=r"deep.jsonl line 2 is nested too deeply to read"):
        deepnb.dataset(tmp_path / "deep.jsonl")
    (tmp_path / "deep.json").write_text("[" + nested_json(100_000) + "]", encoding="utf-8")
    with pytest.raises(DeepnbError, match=r"deep.json is nested too deeply to read"):
        deepnb.dataset(tmp_path / "deep.json")
    shallow = deepnb.dataset([{"input": "q0", "tree": nested(50)}])  # within the bound: kept whole
    assert repr(shallow) and shallow[0].fields["tree"] == nested(50)


def test_a_template_naming_a_field_no_row_has_names_the_fields() -> None:
    data = deepnb.dataset(many_rows(1_000, [0]))
    with pytest.raises(DeepnbError) as caught:
        data.rows("Answer {questoin}")
    assert str(caught.value) == (
        "No row has a field 'questoin', which the template names as {questoin}: "
        "the rows' fields are question."
    )
