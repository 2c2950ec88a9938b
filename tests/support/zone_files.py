"""A test time-zone directory: TZif files written here, loaded by ``zoneinfo`` before the system's.

``zone_directory`` puts a directory first on ``zoneinfo``'s search path
(``reset_tzpath``) and clears its cache; ``write_zone`` writes a zone there with
a fixed offset, optionally changing once at an instant: the tz database release
of a government that moves its clocks. Rewriting a zone and clearing the cache
is what a site sees after a ``tzdata`` upgrade and a restart. The files are
TZif version 2 (RFC 8536), written here without ``zic``.
"""

from __future__ import annotations

import datetime as dt
import struct
import zoneinfo
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def _tzif(offsets: list[tuple[int, str]], changes: list[int], footer: str) -> bytes:
    """One TZif v2 file: ``offsets`` (seconds, abbreviation) as types, ``changes`` the Unix
    seconds at which type 1, 2... begins, ``footer`` the POSIX TZ string after them."""
    chars = b""
    index: list[int] = []
    for _, name in offsets:
        index.append(len(chars))
        chars += name.encode() + b"\0"

    def block(wide: bool) -> bytes:
        head = b"TZif2" + b"\0" * 15
        head += struct.pack(">6l", 0, 0, 0, len(changes), len(offsets), len(chars))
        body = b"".join(struct.pack(">q" if wide else ">l", second) for second in changes)
        body += bytes(range(1, len(changes) + 1))
        body += b"".join(
            struct.pack(">lBB", offset, 0, where)
            for (offset, _), where in zip(offsets, index, strict=True)
        )
        return head + body + chars

    return block(False) + block(True) + b"\n" + footer.encode() + b"\n"


def _posix(offset: int, name: str) -> str:
    hours, rest = divmod(-offset, 3600)
    return f"<{name}>{hours}" + (f":{rest // 60:02d}" if rest else "")


def write_zone(
    directory: Path,
    name: str,
    offset: dt.timedelta,
    *,
    changes_at: dt.datetime | None = None,
    new_offset: dt.timedelta | None = None,
) -> None:
    """Write zone ``name`` under ``directory``: ``offset`` from UTC, or ``new_offset`` from
    ``changes_at`` on; then clear ``zoneinfo``'s cache so the next load reads it."""
    first = int(offset.total_seconds())
    types = [(first, "OLD")]
    changes: list[int] = []
    footer = _posix(first, "OLD")
    if changes_at is not None and new_offset is not None:
        second = int(new_offset.total_seconds())
        types.append((second, "NEW"))
        changes.append(int(changes_at.timestamp()))
        footer = _posix(second, "NEW")
    path = directory / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(_tzif(types, changes, footer))
    zoneinfo.ZoneInfo.clear_cache()


@contextmanager
def zone_directory(directory: Path) -> Iterator[Path]:
    """``directory`` first on ``zoneinfo``'s search path while inside; the system's after."""
    before = zoneinfo.TZPATH
    zoneinfo.reset_tzpath(to=[str(directory), *before])
    zoneinfo.ZoneInfo.clear_cache()
    try:
        yield directory
    finally:
        zoneinfo.reset_tzpath(to=before)
        zoneinfo.ZoneInfo.clear_cache()
