"""The hash a plan action answers, and how an apply tells a wrong hash from a late one.

A plan's ``hash`` in the API is the plan's own digest (64 hex digits, what the
services compare: :mod:`revel_recurring.services.plans.digest`) followed by 16 hex
digits of *check*: a digest of that hash and of the request the plan answered (the
series, the kind of plan, the change as validated). An apply (``recurrence-apply/``,
``split/``) reads the hash it is given against its own request
(:meth:`PlanRequest.read`):

- not 80 hex digits: a 400 from the body's serializer (:data:`HASH_PATTERN`);
- the check does not fit this request (a mistyped hash, or the hash of another
  change or of another series): a 400 on the hash saying it does not match this
  request (:func:`revel_recurring.api.errors.hash_mismatch`), before anything is
  read under a lock;
- the check fits: the hash was answered for this very request, so a plan that no
  longer matches means the series changed since: the 409 of a late plan, with the
  fresh plan and its hash.

Requests that differ only in spelling (an instant with another UTC offset,
weekdays in another order) are the same request; a key sent in one body and left
out of the other is not, though both may change the same (send the same body).
The check travels in the hash, so nothing is kept between a plan and its apply
(docs/decisions/0054-plan-hash-names-its-request.md).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.db import models

from ..services.plans import HOLIDAYS_KEY, WINDOW_KEY

#: A plan's hash as the API answers it: the plan's digest and the request's check.
DIGEST_LENGTH = 64
CHECK_LENGTH = 16
HASH_PATTERN = rf"^[0-9a-f]{{{DIGEST_LENGTH + CHECK_LENGTH}}}$"

#: What the check covers besides the body, bumped when that changes.
_CHECK_VERSION = 1


def _canonical(value: Any) -> Any:
    """``value`` in one spelling: instants in UTC, sets of scalars sorted, rows by key."""
    if isinstance(value, dt.datetime):
        return value.astimezone(dt.UTC).isoformat() if value.tzinfo else value.isoformat()
    if isinstance(value, dt.date | dt.time | dt.timedelta):
        return str(value)
    if isinstance(value, models.Model):
        return ["pk", str(value.pk)]
    if isinstance(value, Mapping):
        return {str(key): _canonical(item) for key, item in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        items = [_canonical(item) for item in value]
        # The lists a body sends (weekdays, extra dates, categories, ids) are sets.
        return sorted(items, key=lambda item: json.dumps(item, sort_keys=True, default=str))
    return value


@dataclass(frozen=True)
class PlanRequest:
    """The request a plan answers: which series, which kind of plan, which change."""

    series: str
    kind: str
    change: Mapping[str, Any]

    def _check(self, digest: str) -> str:
        payload = [_CHECK_VERSION, self.series, self.kind, _canonical(self.change), digest]
        encoded = json.dumps(payload, sort_keys=True, default=str).encode()
        return hashlib.sha256(encoded).hexdigest()[:CHECK_LENGTH]

    def key(self, digest: str) -> str:
        """The hash the API answers for a plan of this request whose digest is ``digest``."""
        return digest + self._check(digest)

    def read(self, given: str) -> tuple[str, bool]:
        """The plan's digest in ``given`` (a hash of :data:`HASH_PATTERN`'s shape), and
        whether ``given`` was answered for this very request."""
        digest, check = given[:DIGEST_LENGTH], given[DIGEST_LENGTH:]
        return digest, check == self._check(digest)


def plan_changes(body: Mapping[str, Any]) -> dict[str, Any]:
    """A change plan's body (``recurrence-plan/``, ``recurrence-apply/``), validated, as
    the plan services' ``changes``."""
    changes = dict(body.get("recurrence") or {})
    if body.get(WINDOW_KEY) is not None:
        changes[WINDOW_KEY] = body[WINDOW_KEY]
    if body.get(HOLIDAYS_KEY):
        changes[HOLIDAYS_KEY] = dict(body[HOLIDAYS_KEY])
    return changes


def plan_request(series: Any, kind: str, change: Mapping[str, Any]) -> PlanRequest:
    """The :class:`PlanRequest` of a plan action on ``series`` (``kind``: ``recurrence``
    or ``split``) for ``change``, the body as the services read it."""
    return PlanRequest(series=str(series.pk), kind=kind, change=dict(change))


__all__ = [
    "CHECK_LENGTH",
    "DIGEST_LENGTH",
    "HASH_PATTERN",
    "PlanRequest",
    "plan_changes",
    "plan_request",
]
