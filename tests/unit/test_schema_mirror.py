"""The front-end's types (widgets/src/schema.ts) are generated from deepnb/core/schema.py and must
not drift from it."""

from __future__ import annotations

import re
from typing import get_args

from deepnb.core import schema
from deepnb.core.schema_ts import TARGET, main, typescript


def test_committed_typescript_mirror_matches_the_schema() -> None:
    committed = TARGET.read_text(encoding="utf-8")
    assert committed == typescript(), "widgets/src/schema.ts is stale: run python -m deepnb.core.schema_ts"


def test_check_mode_fails_on_a_stale_mirror(tmp_path, capsys) -> None:
    stale = tmp_path / "schema.ts"
    stale.write_text(typescript().replace('"running"', '"going"', 1), encoding="utf-8")
    assert main([str(stale), "--check"]) == 1
    assert "out of date" in capsys.readouterr().err
    main([str(stale)])
    assert main([str(stale), "--check"]) == 0


def test_every_item_kind_has_one_interface_with_its_discriminator() -> None:
    ts = typescript()
    kinds = get_args(schema.ItemKind)
    members = get_args(schema.TranscriptItem)
    assert sorted(get_args(m.__annotations__["kind"])[0] for m in members) == sorted(kinds)
    for member in members:
        (kind,) = get_args(member.__annotations__["kind"])
        block = re.search(rf"export interface {member.__name__} {{(.*?)\n}}", ts, re.S)
        assert block is not None and f'  kind: "{kind}";' in block.group(1)


def test_label_tables_cover_their_status_sets() -> None:
    assert set(schema.RUN_STATUS_LABEL) == set(get_args(schema.RunStatus))
    assert set(schema.NODE_STATUS_MARK) == set(get_args(schema.NodeStatus))
    assert set(schema.NODE_STATUS_LABEL) == set(get_args(schema.NodeStatus))
    assert set(schema.TODO_STATUS_MARK) == set(get_args(schema.TodoStatus))
    assert set(schema.DECISION_LABEL) == set(get_args(schema.DecisionMade))
    assert set(schema.TOOL_STATUS_MARK) == set(get_args(schema.ToolStatus)) - {schema.RUNNING}


def test_optional_keys_become_optional_fields() -> None:
    ts = typescript()
    assert "  eval?: EvalCard;" in ts
    assert "  html: string | null;" in ts
    assert "export type TranscriptItem =\n  | PromptItem\n" in ts
    table = "export const RUN_STATUS_LABEL: Readonly<Record<RunStatus, string>> = {"
    assert f'{table}\n  running: "running",' in ts
