"""The studio's notifier: it records every digest it is given."""

from __future__ import annotations

from typing import Any

digests: list[Any] = []


def record_digest(digest: Any) -> None:
    digests.append(digest)
