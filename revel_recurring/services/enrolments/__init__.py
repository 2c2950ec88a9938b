"""Enrolments: a user booked on every date of a series, carried to each new date.

:mod:`.changes` enrols, ends, skips and takes back; :mod:`..toolbox.enrolled` books enrolled
users on dates as they are created or restored (one host call per batch);
:mod:`.carry` hands enrolments to a split's continuation.
"""

from __future__ import annotations

from ..toolbox.enrolled import EnrolmentBatch, book_enrolled_rows, host_enrols
from .carry import carry_enrolments
from .changes import EnrolmentResult, end_enrolment, enrol, skip_date, take_back_date

__all__ = [
    "EnrolmentBatch",
    "EnrolmentResult",
    "book_enrolled_rows",
    "carry_enrolments",
    "end_enrolment",
    "enrol",
    "host_enrols",
    "skip_date",
    "take_back_date",
]
