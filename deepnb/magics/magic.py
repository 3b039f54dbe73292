"""The ``%deepagent`` line magic and ``%%deepagent`` cell magic.

A ``%%deepagent`` cell is rewritten (by an input transformer) into ``await``-ing the run, so the
cell stays busy while the kernel keeps handling widget events: Stop works mid-cell. Where cells
can't await, the magic blocks instead and the view says Stop needs the kernel's interrupt.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.metadata
import re
import sys
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import TYPE_CHECKING, Any

from IPython.core.error import UsageError
from IPython.core.magic import Magics, cell_magic, line_magic, magics_class
from IPython.utils.text import DollarFormatter

from deepnb.core.errors import DeepnbError
from deepnb.core.graphs import langsmith_inline
from deepnb.magics import cell_options, parser, preload, waiting
from deepnb.magics.declaring import Declared
from deepnb.magics.interpolate import interpolate
from deepnb.magics.subcommands import SUBCOMMANDS

if TYPE_CHECKING:
    from deepnb.session.protocol import Session
    from deepnb.views.starting import Starting

_CELL_HEAD = re.compile(r"^%%deepagent(?:[ \t]|$)")


def _kernel_handles_events_while_awaiting() -> bool:
    """ipykernel 7 dispatches comm messages while an async cell awaits."""
    try:
        version = importlib.metadata.version("ipykernel")
    except importlib.metadata.PackageNotFoundError:
        return False
    return int(version.split(".")[0]) >= 7


def _cell_commands() -> ModuleType:
    """What a cell's options become. They reach every layer (agents, remote agents, views):
    ``%load_ext deepnb`` registers the magics without them, the first cell loads them."""
    # lazy: keeps %load_ext deepnb to the magics' own definitions
    from deepnb.magics.commands import cell  # noqa: PLC0415

    return cell


def _project_commands() -> ModuleType:
    """The project's commands, an extension's ``%deepagent /NAME`` among them (loaded as
    :func:`_cell_commands`)."""
    # lazy: keeps %load_ext deepnb to the magics' own definitions
    from deepnb.magics.commands import project  # noqa: PLC0415

    return project


@magics_class
class DeepnbMagics(Magics):
    """``%deepagent SUBCOMMAND`` and ``%%deepagent [options]``."""

    # IPython annotates line_magic(NAME) / cell_magic(NAME) as returning the function *or* a
    # decorator, which no decorator can be used as: what it returns is the decorator.
    @line_magic("deepagent")  # type: ignore[arg-type]
    def line(self, line: str) -> Any:
        if line.lstrip().startswith("/"):  # an extension's command: %deepagent /standup yesterday
            try:
                return _project_commands().extension_command(line)
            except DeepnbError as exc:
                raise UsageError(str(exc)) from None
        name, rest = parser.split_subcommand(line)
        declared = SUBCOMMANDS[name]
        args = parser.parse(declared, rest)
        try:
            return declared.handle(args, self._user_ns)
        except DeepnbError as exc:
            raise UsageError(str(exc)) from None

    @property
    def _user_ns(self) -> dict[str, Any]:
        """The kernel's namespace (a magic is registered with its shell, so it has one)."""
        assert self.shell is not None, "deepnb's magics run in an IPython shell"
        namespace: dict[str, Any] = self.shell.user_ns  # a traitlets Instance(dict)
        return namespace

    def _expanded(self, line: str) -> str:
        """``{expr}`` and ``$name`` in the line filled from the kernel's namespace, as IPython
        fills them for every magic it calls: the awaited form of the cell bypasses that call."""
        try:
            return str(DollarFormatter().vformat(line, args=[], kwargs=self._user_ns))
        except Exception:  # as IPython's var_expand: a line it can't fill is used as written
            return line

    @cell_magic("deepagent")  # type: ignore[arg-type]
    def cell(self, line: str, cell: str) -> None:
        """Run the cell body as a task, blocking until the run ends (unless ``--bg``)."""
        if _is_form(line, "eval"):
            experiment, matrix, args = self._start_eval(line, cell)
            if not args.bg:
                waiting.wait_for(experiment, matrix, what="experiment")
            return
        if _is_map(line):
            batch, grid, args = self._start_map(line, cell)
            if not args.bg:
                waiting.wait_for(batch, grid, what="batch")
            return
        run, view, args = self._start(line, cell, live_controls=False)
        if args.bg:
            return
        try:
            run.follow()  # a comparison follows all its runs: Ctrl-C stops them all
        except KeyboardInterrupt:
            raise waiting.interrupted(f"{run.id} stopped; its thread keeps every step up to here") from None
        finally:
            view.sync()
        _record(run, args)

    async def cell_async(self, line: str, cell: str) -> None:
        """Run the cell body as a task; the cell awaits the run, so Stop and the approval cards
        work mid-cell. With ``--wait`` it also waits through approvals. ``map VAR`` starts a batch
        (the body is the template) and awaits it unless ``--bg``."""
        line = self._expanded(line)
        if _is_form(line, "eval"):
            experiment, matrix, args = self._start_eval(line, cell)
            if not args.bg:
                await waiting.await_many(experiment, matrix, "experiment")
            return
        if _is_map(line):
            batch, grid, args = self._start_map(line, cell)
            if not args.bg:
                await waiting.await_many(batch, grid, "batch")
            return
        run, view, args = self._start(line, cell, live_controls=_kernel_handles_events_while_awaiting())
        if args.bg:
            return
        try:
            await run.wait_async(settled=args.wait)  # a comparison: all its runs
        except (KeyboardInterrupt, asyncio.CancelledError):
            # The kernel's interrupt: an async cell sees it as its task cancelled. Either way the
            # user pressed ■ (or Ctrl-C), so the run stops and the cell says KeyboardInterrupt.
            reason = waiting.stop_by_the_kernel(run)
            await waiting.settle(run)
            raise waiting.interrupted(f"{run.id} {reason}; its thread keeps every step up to here") from None
        finally:
            view.sync()
        _record(run, args)

    def _start_map(self, line: str, cell: str) -> tuple[Any, Any, Any]:
        """``%%deepagent map VAR [options]``: start the batch and show its grid."""

        def show(batch: Any, into: Any) -> Any:
            # lazy: the grid loads anywidget, which %load_ext deepnb does not need
            from deepnb.views.batch.batch_view import show_batch  # noqa: PLC0415

            return show_batch(batch, into=into)

        def start(args: Any, body: str, namespace: dict[str, Any]) -> Any:
            return _mapping().start_map(args, body, namespace)  # imported under "starting…"

        return self._start_many(line, cell, SUBCOMMANDS["map"], lambda a: f"map {a.inputs}", start, show)

    def _start_eval(self, line: str, cell: str) -> tuple[Any, Any, Any]:
        """``%%deepagent eval DATASET [options]``: start the experiment (the body its template)
        and show its live matrix."""

        def show(experiment: Any, into: Any) -> Any:
            # lazy: the matrix loads anywidget, which %load_ext deepnb does not need
            from deepnb.views.experiment.experiment_live import show_experiment  # noqa: PLC0415

            return show_experiment(experiment, into=into)

        def start(args: Any, body: str, namespace: dict[str, Any]) -> Any:
            return _evaluating().start_eval(args, body, namespace)  # imported under "starting…"

        return self._start_many(line, cell, SUBCOMMANDS["eval"], lambda a: f"eval {a.dataset}", start, show)

    def _start_many(
        self,
        line: str,
        cell: str,
        options: Declared,
        task: Callable[[Any], str],
        start: Callable[[Any, str, dict[str, Any]], Any],
        show: Callable[[Any, Any], Any],
    ) -> tuple[Any, Any, Any]:
        """A many-run cell (``map``, ``eval``): parse the line after the subcommand with
        ``options``, show "starting…" under ``task(args)``, ``start`` it, then ``show`` it in
        that output; a mistake is one line."""
        words = line.split(None, 1)
        args = parser.parse(options, words[1] if len(words) > 1 else "")
        with _placeholder(self.shell, f"{task(args)}: {cell}") as into:
            try:
                started = start(args, cell, self._user_ns)
            except DeepnbError as exc:
                raise UsageError(str(exc)) from None
            return started, show(started, into), args

    def _start(self, line: str, cell: str, *, live_controls: bool) -> tuple[Any, Any, Any]:
        args = parser.parse(cell_options.cell, line)
        if args.wait and not live_controls:
            raise UsageError(
                "--wait needs a kernel that handles widget events while a cell runs (ipykernel 7 or "
                "later, in JupyterLab or Notebook 7). Leave it out: decide on the cards, then go on."
            )
        if args.at is not None or args.compare:  # their first lines (fork, models) come first
            return self._start_run(args, cell, live_controls=live_controls, into=None)
        with _placeholder(self.shell, f"--input {args.input}" if args.input else cell) as into:
            opened = self._open_view(args, cell, live_controls=live_controls, into=into)
            try:
                return self._start_run(args, cell, live_controls=live_controls, into=into, opened=opened)
            except BaseException:
                if opened is not None:
                    opened.close()
                raise

    def _open_view(self, args: Any, cell: str, *, live_controls: bool, into: Any) -> Any:
        """The run's view, shown at once in the placeholder's output while the agent stack
        loads and the agent is built (seconds in a kernel's first cell): a run on the cell's
        task, in a kernel. ``None`` where there is no such run yet to show."""
        if into is None or args.input:
            return None
        try:
            prompt = self._prompt(args, cell)
        except DeepnbError:
            return None  # the run's start says what is wrong
        # lazy: the run view loads anywidget, which %load_ext deepnb does not need; no LangChain
        from deepnb.session import agents  # noqa: PLC0415
        from deepnb.views.output import show_opening  # noqa: PLC0415

        name = args.agent or agents.current_name()
        return show_opening(name, prompt, live_controls=live_controls or args.bg, into=into)

    def _prompt(self, args: Any, cell: str) -> str:
        """The task in the cell's body, its variables filled in unless ``--no-interpolate``."""
        prompt = cell if args.no_interpolate else interpolate(cell, self._user_ns)
        if not prompt.strip():
            raise DeepnbError("The cell body is the task: write what the agent should do below %%deepagent.")
        return prompt.strip()

    def _start_run(
        self, args: Any, cell: str, *, live_controls: bool, into: Any, opened: Any = None
    ) -> tuple[Any, Any, Any]:
        commands = _cell_commands()
        try:
            _check_record(args)
            if args.input:
                prompt = commands.input_variable(args.input, cell, self._user_ns)
            else:
                prompt = opened.run.prompt if opened is not None else self._prompt(args, cell)
            options = commands.agent_options(args, self._user_ns)
            if args.compare:
                comparison = commands.compare(
                    args.compare,
                    args.agent,
                    prompt,
                    options,
                    auto_approve=args.auto_approve,
                    namespace=self._user_ns,
                    context=commands.context_variable(args.context, self._user_ns),
                )
                return self._show_comparison(comparison, args, live_controls=live_controls)
            workbench: Session = commands.workbench_for(args.agent, args.model, options, self._user_ns)
            origin = (args.thread or workbench.current_thread) if args.at is not None else None
            run = workbench.start(
                prompt,
                thread=args.thread,
                new_thread=args.new,
                auto_approve=args.auto_approve,
                at=commands.at_option(args.at),
                context=commands.context_variable(args.context, self._user_ns),
            )
        except DeepnbError as exc:
            raise UsageError(str(exc)) from None
        if origin is not None:
            print(commands.forked_notice(workbench, origin, args.at, run.thread_id))
        # lazy: the run view loads anywidget, which %load_ext deepnb does not need
        from deepnb.views.output import show_run  # noqa: PLC0415

        view = show_run(run, live_controls=live_controls or args.bg, into=into, opened=opened)
        if args.output:
            self._user_ns[args.output] = run
        return run, view, args

    def _show_comparison(self, comparison: Any, args: Any, *, live_controls: bool) -> tuple[Any, Any, Any]:
        """Display a ``--compare`` cell's comparison; it then stands where a run does (waited
        for, stopped, stored in ``-o VAR``)."""
        # lazy: the compare view loads ipywidgets and anywidget, which %load_ext deepnb does not need
        from deepnb.views.compare_view import show_comparison  # noqa: PLC0415

        view = show_comparison(comparison, live_controls=live_controls or args.bg)
        if args.output:
            self._user_ns[args.output] = comparison
        return comparison, view, args


@contextlib.contextmanager
def _placeholder(shell: Any, task: str) -> Iterator[Starting | None]:
    """The cell's output at once, "starting…" under its task, while the agent stack loads and
    the run starts; the view then takes it over. Emptied if nothing starts. Only in a kernel:
    a terminal prints each update of an output instead of replacing it."""
    if not preload.in_kernel(shell):
        yield None
        return
    # lazy, and light: IPython's display and deepnb's redaction only
    from deepnb.views.starting import Starting  # noqa: PLC0415

    into = Starting(task)
    try:
        yield into
    except BaseException:
        into.withdraw()
        raise


def _check_record(args: Any) -> None:
    """Refuse ``--record PATH`` before the run starts if PATH can't take the recording."""
    if args.force and not args.record:
        raise DeepnbError("--force replaces the file --record PATH writes: give --record PATH too.")
    if args.record:
        from deepnb.engine.recording import check_target  # noqa: PLC0415  # lazy: as _cell_commands()

        check_target(args.record, force=args.force)


def _record(run: Any, args: Any) -> None:
    """With ``--record PATH``: write the run that ended to PATH; say where in one line. A run
    that waits for approval is written up to its cards, and again once it finishes."""
    if not args.record:
        return
    try:
        recorded = run.record(args.record, force=args.force)
    except DeepnbError as exc:
        raise UsageError(str(exc)) from None
    print(repr(recorded) + (" The file is written again when the run finishes." if recorded.waiting else ""))
    if recorded.waiting:
        _record_when_finished(run, args.record)


def _record_when_finished(run: Any, path: str) -> None:
    # lazy: the engine is loaded by now (a run exists); %load_ext deepnb does not load it
    from deepnb.core.events import RunCancelled, RunFailed, RunFinished  # noqa: PLC0415

    def listener(event: Any) -> None:
        if isinstance(event, RunFinished | RunFailed | RunCancelled):
            unsubscribe()
        if isinstance(event, RunFinished):  # a listener's failure is logged, never the run's
            run.record(path, force=True)

    unsubscribe = run.subscribe(listener)


def _is_map(line: str) -> bool:
    """Whether a ``%%deepagent`` line is the ``map VAR`` cell form."""
    return _is_form(line, "map")


def _is_form(line: str, word: str) -> bool:
    """Whether a ``%%deepagent`` line is the ``WORD ...`` cell form (``map``, ``eval``)."""
    words = line.split(None, 1)
    return bool(words) and words[0] == word


def _evaluating() -> ModuleType:
    """The eval command (loads the engine and the agents, as the subcommands do)."""
    # lazy: keeps %load_ext deepnb to the magics' own definitions
    from deepnb.magics.commands import evaluating  # noqa: PLC0415

    return evaluating


def _mapping() -> ModuleType:
    """The map command (loads the engine and the agents, as the subcommands do)."""
    # lazy: keeps %load_ext deepnb to the magics' own definitions
    from deepnb.magics.commands import mapping  # noqa: PLC0415

    return mapping


def transform_cell(lines: list[str]) -> list[str]:
    """Rewrite a ``%%deepagent`` cell into an awaited call, so it runs as an async cell."""
    if not lines or not _CELL_HEAD.match(lines[0]):
        return lines
    line = lines[0][len("%%deepagent") :].strip()
    body = "".join(lines[1:])
    call = f"get_ipython().find_cell_magic('deepagent').__self__.cell_async({line!r}, {body!r})"
    return [f"await {call}\n"]


def load(ipython: Any) -> None:
    ipython.register_magics(DeepnbMagics)
    if getattr(ipython, "autoawait", False) and transform_cell not in ipython.input_transformers_cleanup:
        ipython.input_transformers_cleanup.append(transform_cell)
    preload.schedule(ipython)  # once this cell has ended, the kernel imports the agent stack


def unload(ipython: Any) -> None:
    """Remove the magics; run the extensions' shutdown callbacks (once; errors are printed)."""
    if "deepnb.extensions" in sys.modules:
        sys.modules["deepnb.extensions"].shutdown()
    langsmith_inline.uninstall()
    if transform_cell in ipython.input_transformers_cleanup:
        ipython.input_transformers_cleanup.remove(transform_cell)
    magics = ipython.magics_manager.magics
    for kind in ("line", "cell"):
        magics[kind].pop("deepagent", None)
