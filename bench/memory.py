"""The process's resident memory, as Linux reports it: shared by bench/reads.py and the tests.

``VmHWM`` (peak resident set size) counts everything the process touched: Python
objects, the database driver's C buffers, the allocator's arenas. It is a
high-water mark over the process's life; :func:`reset_peak_rss` brings it down to
the current size (``/proc/self/clear_refs``, Linux 4.0 and later), so each
measured call starts from where the process stands, not from an earlier peak.
Linux only: elsewhere :class:`MemoryProbeUnavailable` is raised.
"""

from __future__ import annotations

import contextlib
import gc
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")

_STATUS = Path("/proc/self/status")
_CLEAR_REFS = Path("/proc/self/clear_refs")


class MemoryProbeUnavailable(RuntimeError):
    """This system does not report a process's resident memory (not Linux)."""


def _status_bytes(key: str) -> int:
    try:
        lines = _STATUS.read_text().splitlines()
    except OSError as exc:
        raise MemoryProbeUnavailable(f"cannot read {_STATUS}: {exc}") from exc
    for line in lines:
        if line.startswith(f"{key}:"):
            return int(line.split()[1]) * 1024
    raise MemoryProbeUnavailable(f"no {key} in {_STATUS}")


def peak_rss() -> int:
    """The process's peak resident set size so far (``VmHWM``), in bytes."""
    return _status_bytes("VmHWM")


def current_rss() -> int:
    """The process's resident set size now (``VmRSS``), in bytes."""
    return _status_bytes("VmRSS")


def reset_peak_rss() -> bool:
    """Lower ``VmHWM`` to the current RSS; False where the kernel does not allow it.

    Without the reset, a call after a bigger one would show no growth at all.
    """
    try:
        _CLEAR_REFS.write_text("5")
    except OSError:
        return False
    return True


def peak_growth(call: Callable[[], T]) -> tuple[T, int]:
    """Run ``call``; its result and how far it raised the process's peak RSS, in bytes.

    The baseline is the peak after a reset (the current RSS), or the peak so far
    where the reset is refused (then only growth above every earlier peak shows).
    """
    baseline = current_rss() if reset_peak_rss() else peak_rss()
    result = call()
    return result, max(0, peak_rss() - baseline)


__all__ = [
    "MemoryProbeUnavailable",
    "current_rss",
    "peak_growth",
    "peak_rss",
    "reset_peak_rss",
]


@contextlib.contextmanager
def heap_tracing() -> Iterator[Callable[[Callable[[], object]], int]]:
    """Yield a function measuring the Python heap's peak growth (bytes) while a call runs.

    tracemalloc counts exactly the allocations made during the call, whatever ran
    before in this process (the tests' fixtures use it; ``VmHWM`` above is the
    whole process's figure, measured in a fresh process).
    """
    tracemalloc.start()

    def measure(call: Callable[[], object]) -> int:
        gc.collect()
        tracemalloc.reset_peak()
        before = tracemalloc.get_traced_memory()[0]
        result = call()
        peak = tracemalloc.get_traced_memory()[1]
        del result
        return peak - before

    try:
        yield measure
    finally:
        tracemalloc.stop()
