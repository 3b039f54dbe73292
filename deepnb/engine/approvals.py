"""Human-in-the-loop decisions: approval requests as Python objects, decisions checked before
they are sent, and previews of what a gated file tool would do."""

from __future__ import annotations

import difflib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from deepnb.core.call_args import call_args, json_text, text_arg
from deepnb.core.errors import DeepnbError
from deepnb.core.handles import Decider
from deepnb.core.schema import DecisionType, FilePreview
from deepnb.core.text.safe_display import safe_display
from deepnb.core.text.secrets import REDACTED, redact

DECISIONS: tuple[DecisionType, ...] = ("approve", "edit", "reject", "respond")
CARD_MESSAGES = ("decide", "always", "approve_all")
"""The messages an approval card sends (their fields are typed by ``deepnb.views.messages``)."""
_DECISION_FIELDS = {"type": (str,), "message": (str,), "args": (dict, str)}


@safe_display
@dataclass(frozen=True)
class ApprovalRequest:
    """One gated tool call waiting for a decision. ``approve()``, ``edit(args)``,
    ``reject(message)`` and ``respond(message)`` decide it; the run resumes once every action
    of its interrupt is decided."""

    run: Decider
    interrupt_id: str
    index: int
    name: str
    args: Mapping[str, Any]
    description: str
    allowed: tuple[str, ...]
    agent: str

    def approve(self) -> None:
        self.run.decide(self.interrupt_id, self.index, {"type": "approve"})

    def edit(self, args: Mapping[str, Any]) -> None:
        """Run the tool with these arguments instead."""
        self.run.decide(self.interrupt_id, self.index, {"type": "edit", "args": args})

    def reject(self, message: str = "") -> None:
        """Don't run the tool; the agent is told why."""
        self.run.decide(self.interrupt_id, self.index, {"type": "reject", "message": message})

    def respond(self, message: str) -> None:
        """Don't run the tool; answer in its place with ``message``."""
        self.run.decide(self.interrupt_id, self.index, {"type": "respond", "message": message})

    def resume(self, value: Any) -> None:
        """Answer the whole interrupt this action belongs to with ``value`` as it is (for the
        middleware: ``{"decisions": [...]}``, one per action), in place of the decisions."""
        self.run.answer(self.interrupt_id, value)

    def __repr__(self) -> str:
        where = "" if self.agent == "main" else f" in {self.agent}"
        args = json_text(self.args, 80)
        return f"<ApprovalRequest {self.name}{where} {args} allowed={'/'.join(self.allowed)}>"


def normalize(
    decision: Mapping[str, Any], *, tool: str, allowed: Sequence[str], schema: Any = None
) -> dict[str, Any]:
    """Check a decision from a card or the Python API and turn it into what the
    human-in-the-loop middleware expects. Raises ``DeepnbError`` saying what is wrong."""
    kind = decision.get("type")
    if kind not in DECISIONS:
        raise DeepnbError(f"Unknown decision {kind!r}: use one of {', '.join(DECISIONS)}.")
    if kind not in allowed:
        raise DeepnbError(f"{tool} does not allow {kind!r} here: choose {', '.join(allowed)}.")
    if kind == "approve":
        return {"type": "approve"}
    if kind in ("reject", "respond"):
        message = str(decision.get("message") or "")
        if kind == "respond" and not message.strip():
            raise DeepnbError("A response needs a message: write what the tool call should return.")
        return {"type": kind, "message": message} if message else {"type": kind}
    args = decision.get("args")
    if isinstance(args, str):
        try:
            args = json.loads(args)
        except ValueError as exc:
            raise DeepnbError(f"The edited arguments are not valid JSON ({exc}); nothing was sent.") from None
    if not isinstance(args, Mapping):
        raise DeepnbError("Edited arguments must be an object of argument names to values; nothing was sent.")
    if schema is not None:
        try:
            schema.model_validate(dict(args))
        except Exception as exc:  # pydantic's ValidationError, worded for people
            first = str(exc).splitlines()
            reason = "; ".join(line.strip() for line in first[1:3]) or str(exc)
            raise DeepnbError(f"The edited arguments don't fit {tool}: {reason}. Nothing was sent.") from None
    return {"type": "edit", "edited_action": {"name": tool, "args": dict(args)}}


def check_card(kind: str, content: Mapping[str, Any], pending: Sequence[Mapping[str, Any]]) -> list[int]:
    """Check a card's message against the interrupt it answers; return the indexes of the
    actions it decides. The interrupt must be pending; ``index`` must be an int naming one of
    its actions; ``tool`` must be that action's tool; ``decision`` must be a decision that
    action allows, and not an edit of a card whose arguments were shortened for display
    (``clipped``). Anything else raises ``DeepnbError`` and nothing is decided."""
    interrupt_id = content.get("interrupt_id")
    request = next((p for p in pending if p.get("id") == interrupt_id), None)
    if not isinstance(interrupt_id, str) or request is None:
        raise DeepnbError(f"No approval {interrupt_id!r} is waiting (any more): nothing was sent.")
    if request.get("kind") == "question":
        raise DeepnbError("That interrupt asks a question: answer it in its reply box. Nothing was sent.")
    actions = {a["index"]: a for a in request.get("actions", ())}
    if kind == "approve_all":  # the undecided actions that allow an approval; others wait for theirs
        return [
            index
            for index, action in actions.items()
            if not action.get("decision") and "approve" in action.get("allowed", ("approve",))
        ]
    index = content.get("index")
    if isinstance(index, bool) or not isinstance(index, int) or index not in actions:
        raise DeepnbError(f"Approval {interrupt_id} has no action {index!r}: nothing was sent.")
    action = actions[index]
    if kind == "always":
        if content.get("tool") != action["name"]:
            raise DeepnbError(
                f"This card asks about {action['name']}, not {content.get('tool')!r}: nothing was sent."
            )
        if "approve" not in action["allowed"]:
            raise DeepnbError(f"{action['name']} does not allow 'approve' here: nothing was sent.")
        return [index]
    decision = content.get("decision")
    if not isinstance(decision, Mapping):
        raise DeepnbError("A decision from a card needs a decision object: nothing was sent.")
    chosen = decision.get("type")
    for name, value in decision.items():
        types = _DECISION_FIELDS.get(name)
        if types is None or not isinstance(value, types) or (name == "args" and chosen != "edit"):
            raise DeepnbError(f"A {chosen!r} decision takes no {name!r} like that: nothing was sent.")
    allowed = ", ".join(action["allowed"])
    if chosen not in DECISIONS:
        raise DeepnbError(f"Unknown decision {chosen!r}: use one of {', '.join(DECISIONS)}.")
    if chosen not in action["allowed"]:
        raise DeepnbError(f"{action['name']} does not allow {chosen!r} here: choose {allowed}.")
    if chosen == "edit" and action.get("clipped"):
        raise DeepnbError(
            f"This {action['name']} card shows its arguments shortened, so it cannot edit them: "
            "use run.pending[i].edit({...}) from Python. Nothing was sent."
        )
    return [index]


def restore_hidden(edited: Any, original: Mapping[str, Any]) -> Any:
    """Edited arguments from a card, whose JSON showed secrets as ``[redacted]``: every string
    the user left as the card showed it gets its original value back, so an edit elsewhere does
    not send the placeholder. A string holding a hidden secret that the user changed is refused
    (the secret would be lost). ``edited`` may be JSON text; text that isn't JSON is returned
    as it is, for :func:`normalize` to explain."""
    if isinstance(edited, str):
        try:
            edited = json.loads(edited)
        except ValueError:
            return edited
    return _restore(edited, original, "")


def _restore(edited: Any, original: Any, where: str) -> Any:
    if isinstance(edited, str):
        if isinstance(original, str) and edited == redact(original):
            return original
        if REDACTED in edited:
            raise DeepnbError(
                f"{where or 'The arguments'} held a secret the card hides, and the edit changed it: "
                "edit this call from Python with run.pending[i].edit({...}). Nothing was sent."
            )
        return edited
    if isinstance(edited, Mapping):
        fields = original if isinstance(original, Mapping) else {}
        return {k: _restore(v, fields.get(k), f"{where}.{k}" if where else str(k)) for k, v in edited.items()}
    if isinstance(edited, list):
        items = original if isinstance(original, list) else []
        return [
            _restore(v, items[i] if i < len(items) else None, f"{where}[{i}]") for i, v in enumerate(edited)
        ]
    return edited


def _file_text(files: Mapping[str, Any], path: str) -> str | None:
    entry = files.get(path)
    if entry is None:
        return None
    content = entry.get("content", "") if isinstance(entry, Mapping) else entry
    return "\n".join(content) if isinstance(content, list) else str(content)


PREVIEWED = 2_000_000
"""Characters of a file, before or after an edit, whose diff an approval card previews."""


def preview(name: str, args: Any, files: Mapping[str, Any]) -> FilePreview | None:
    """What a file tool would do: the content ``write_file`` writes, or the diff ``edit_file``
    makes against the file as it stands in the thread's state. The arguments are the model's
    (any JSON, :mod:`deepnb.core.call_args`): what the tool would refuse previews as what it is."""
    args = call_args(args)
    path = text_arg(args, "file_path") or text_arg(args, "path") or ""
    if name == "write_file" and "content" in args:
        content = args["content"]
        return FilePreview(
            kind="content", text=content if isinstance(content, str) else json_text(content, PREVIEWED)
        )
    if name == "edit_file" and path:
        before = _file_text(files, path)
        if before is None:
            return FilePreview(kind="diff", text=f"{path} is not in the thread's files; the edit will fail.")
        old, new = text_arg(args, "old_string"), text_arg(args, "new_string")
        if not old or new is None:
            return FilePreview(kind="diff", text="The edit names no text to replace with text; it will fail.")
        every = args.get("replace_all") is True
        found = before.count(old) if every else min(before.count(old), 1)
        grown = len(before) + (len(new) - len(old)) * found
        if max(len(before), grown) > PREVIEWED:
            text = f"{path} would be {grown:,} characters: too long to preview."
            return FilePreview(kind="diff", text=text)
        after = before.replace(old, new) if every else before.replace(old, new, 1)
        diff = difflib.unified_diff(
            before.splitlines(), after.splitlines(), f"{path} (now)", f"{path} (after)", lineterm=""
        )
        return FilePreview(kind="diff", text="\n".join(diff) or "No change.")
    return None


def tool_schema(graph: Any, name: str) -> Any:
    """The argument schema of the main agent's tool ``name``, or ``None`` when unknown."""
    node = getattr(graph, "nodes", {}).get("tools")
    tools = getattr(getattr(node, "bound", None), "tools_by_name", {}) or {}
    tool = tools.get(name)
    return getattr(tool, "tool_call_schema", None) if tool is not None else None
