"""Where a chunked daily pass spends its time, without a profiler's distortion.

cProfile slows Python more than it slows waiting on the database, so its shares
overstate planning and row building. Here each part of the chunk is timed with
``perf_counter`` around the function that does it, and every SQL statement's
round trip is timed on the connection, so a part's time splits into database and
Python. The wrappers are installed for one pass and removed after it.
"""

from __future__ import annotations

import functools
import re
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

# (module, function, label): the chunk's parts, outermost first.
PARTS = (
    (
        "revel_recurring.services.generation.chunks",
        "_generate_chunk",
        "chunk transaction, all of it",
    ),
    ("revel_recurring.services.generation.chunks", "lock_series_chunk", "lock (SKIP LOCKED)"),
    ("revel_recurring.services.generation.floor", "read_taken_slots", "templates + taken slots"),
    ("revel_recurring.services.generation.floor", "plan_generation", "planning (rule walk)"),
    ("revel_recurring.services.generation.floor", "build_occurrences", "building rows"),
    ("revel_recurring.services.generation.floor", "bulk_insert", "occurrence INSERT"),
    ("revel_recurring.services.generation.floor", "write_cursors", "cursor UPDATE"),
)


@contextmanager
def _timed(module: Any, name: str, label: str, spent: Counter[str]) -> Iterator[None]:
    original = getattr(module, name)

    @functools.wraps(original)
    def timed(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            spent[label] += time.perf_counter() - started

    setattr(module, name, timed)
    try:
        yield
    finally:
        setattr(module, name, original)


@contextmanager
def _timed_method(model: Any, name: str, label: str, spent: Counter[str]) -> Iterator[None]:
    original = model.__dict__.get(name)
    bound = getattr(model, name)

    def timed(cls: Any, *args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return bound(*args, **kwargs)
        finally:
            spent[label] += time.perf_counter() - started

    setattr(model, name, classmethod(timed))
    try:
        yield
    finally:
        if original is None:
            delattr(model, name)
        else:
            setattr(model, name, original)


def statement_kind(sql: str) -> str:
    """``SELECT events_event``, ``UPDATE revel_recurring_eventseries``: verb and first table."""
    verb = sql.split(None, 1)[0].upper()
    table = re.search(r"(?:INTO|UPDATE|FROM)\s+[`\"]?(\w+)", sql)
    kind = f"{verb} {table.group(1) if table else '?'}"
    return f"{kind} (lock)" if re.search(r"\bFOR (NO KEY )?UPDATE\b", sql) else kind


class StatementClock:
    """Each statement's round trip (send, server, fetch), summed by its first words."""

    def __init__(self) -> None:
        self.spent: Counter[str] = Counter()
        self.count: Counter[str] = Counter()

    def __call__(
        self, execute: Callable[..., Any], sql: str, params: Any, many: bool, context: Any
    ) -> Any:
        started = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            key = statement_kind(sql)
            self.spent[key] += time.perf_counter() - started
            self.count[key] += 1


def split_pass(
    run: Callable[[], Any], event_model: Any
) -> tuple[float, Counter[str], StatementClock]:
    """Run ``run`` (one chunked pass) with every part of the chunk timed."""
    import importlib

    from django.db import connection

    spent: Counter[str] = Counter()
    clock = StatementClock()
    with ExitStack() as stack:
        for module_name, name, label in PARTS:
            stack.enter_context(_timed(importlib.import_module(module_name), name, label, spent))
        stack.enter_context(
            _timed_method(event_model, "clone_related_many", "host's related rows", spent)
        )
        stack.enter_context(connection.execute_wrapper(clock))
        started = time.perf_counter()
        run()
        elapsed = time.perf_counter() - started
    return elapsed, spent, clock


def print_split(elapsed: float, spent: Counter[str], clock: StatementClock, due: int) -> None:
    """The parts in microseconds per due series, then the statements."""
    print(f"\n  one chunked pass, timed by part (no profiler): {1000 * elapsed:.0f} ms")
    print(f"  {'part':<32}{'ms':>8}{'us/due':>9}")
    for _, _, label in PARTS[:1]:
        print(f"  {label:<32}{1000 * spent[label]:>8.1f}{1e6 * spent[label] / due:>9.1f}")
    for label in [label for _, _, label in PARTS[1:]] + ["host's related rows"]:
        print(f"    {label:<30}{1000 * spent[label]:>8.1f}{1e6 * spent[label] / due:>9.1f}")
    print(f"  {'statement (round trip)':<48}{'ms':>8}{'us/due':>9}{'count':>7}")
    for key, seconds in clock.spent.most_common():
        per_due = 1e6 * seconds / due
        print(f"    {key:<46}{1000 * seconds:>8.1f}{per_due:>9.1f}{clock.count[key]:>7}")
