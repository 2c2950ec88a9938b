"""Django's warnings about the app's own partial constraint and index, where they are answered.

On a backend without partial indexes (MariaDB, MySQL) Django warns on every
``migrate`` and ``check``: ``models.W036`` for each conditional unique constraint
(the mixin's "one template per series", which is not created there) and
``models.W037`` for a model with a conditional index (the due-series index of
``EventSeries``, created as a plain index on ``next_due_at``). Both are answered
by the app itself, so a host never has to silence them (and so hide its own):

- one template per series is enforced under the series lock by every service that
  gives a series a template (``services.templates.save_template``);
- the plain index serves the daily pass's query as well (paused series are in it
  too, which costs space, not correctness).

The model classes' ``check()`` leave out exactly those warnings; the same warning
about a host's own conditional constraint or index stays. docs/howto/mariadb.md
says all this for hosts.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection

from django.core import checks
from django.db import models

#: Django's ids (django.db.models.base and constraints).
CONDITIONAL_UNIQUE_CONSTRAINT = "models.W036"
CONDITIONAL_INDEX = "models.W037"


def without_answered_warnings(
    model: type[models.Model],
    messages: list[checks.CheckMessage],
    *,
    constraints: Collection[str] = (),
    indexes: Collection[str] = (),
) -> list[checks.CheckMessage]:
    """``messages`` of ``model.check()`` without the W036/W037 about the named ones.

    Django gives one W036 per conditional unique constraint and database, all with
    the same text for one backend and none naming its constraint: of each group of
    equal messages, the share that belongs to the named ``constraints`` is left
    out. One W037 per database covers every conditional index: it is left out only
    when all of them are among the named ``indexes``.
    """
    conditional = [
        c.name
        for c in model._meta.constraints
        if isinstance(c, models.UniqueConstraint) and c.condition is not None
    ]
    answered = sum(1 for name in conditional if name in constraints)
    partial = [i.name for i in model._meta.indexes if i.condition is not None]
    all_indexes_answered = bool(partial) and all(name in indexes for name in partial)

    groups = Counter(
        m.msg for m in messages if m.id == CONDITIONAL_UNIQUE_CONSTRAINT and m.obj is model
    )
    # Per group of equal messages: how many to leave out (c = databases x conditional).
    to_drop = {msg: count * answered // len(conditional) for msg, count in groups.items()}
    kept: list[checks.CheckMessage] = []
    for message in messages:
        ours = message.obj is model
        if ours and message.id == CONDITIONAL_UNIQUE_CONSTRAINT and to_drop.get(message.msg):
            to_drop[message.msg] -= 1
            continue
        if ours and message.id == CONDITIONAL_INDEX and all_indexes_answered:
            continue
        kept.append(message)
    return kept
