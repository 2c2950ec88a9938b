"""The wall clock's seconds, for tests of HTTP dates (``Last-Modified``: whole seconds).

Views read the real clock, so a test places its steps in seconds instead of
passing ``now=``: after the second of the last change has ended, or all within
one second.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import time
from collections.abc import Callable
from typing import TypeVar

from revel_recurring.exceptions import NotCancelledError
from revel_recurring.models import EventSeries
from revel_recurring.services.cancellation import restore_occurrence

T = TypeVar("T")


def after_this_second() -> None:
    """Sleep until the next whole second: every change made so far is in a second that ended."""
    time.sleep(1.01 - time.time() % 1)


def within_one_second(steps: Callable[[], T], *, attempts: int = 5) -> T:
    """``steps()`` run from the start of a second and finished before it ended.

    Steps of a few hundred milliseconds fit easily; on a loaded machine a run that
    crossed into the next second is repeated (``steps`` must tolerate that), and
    the test fails if none fits, rather than proving nothing.
    """
    for _ in range(attempts):
        after_this_second()
        began = time.time()
        result = steps()
        if int(time.time()) == int(began):
            return result
    raise AssertionError(f"the steps never fitted in one second in {attempts} attempts")


def restore_for_another_attempt(series: EventSeries, *slots: dt.datetime) -> None:
    """Restore those of ``slots`` an earlier attempt of :func:`within_one_second` cancelled.

    Steps that cancel dates start with it: a repeated attempt then changes the feed
    again, where cancelling a cancelled date would change nothing (and the feed would
    rightly answer 304 to a poll the test expects a 200 for).
    """
    for slot in slots:
        with contextlib.suppress(NotCancelledError):
            restore_occurrence(series, slot)
