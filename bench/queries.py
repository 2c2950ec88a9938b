"""Counting the SQL statements a piece of code runs, for the benchmarks."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any


class QueryCounter:
    """Counts the statements run; keeps nothing of them (unlike CaptureQueriesContext)."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(
        self, execute: Callable[..., Any], sql: str, params: Any, many: bool, context: Any
    ) -> Any:
        self.count += 1
        return execute(sql, params, many, context)


@contextmanager
def counting() -> Iterator[QueryCounter]:
    """Count the statements of the default connection inside the block."""
    from django.db import connection

    counter = QueryCounter()
    with connection.execute_wrapper(counter):
        yield counter
