"""A host delivery (``REVEL_RECURRING_PEOPLE_DELIVERY``) whose worker dies once, for the tests.

It sends e-mail as the app does (:func:`revel_recurring.notices.delivery.send_email`),
except for one message: for the address ``REVEL_TEST_CRASH`` names, the first
attempt ends the worker process at once (``os._exit``, as a killed or out-of-memory
worker ends: no exception handler, no rollback of its own, no acknowledgement),
either before the mail server saw the message (``"before:alice@example.com"``) or
right after it accepted it, before the notice is marked sent
(``"after:alice@example.com"``). A file (``REVEL_TEST_CRASH_MARKER``) remembers
that the crash happened, so the next worker sends normally.
"""

from __future__ import annotations

import os
from pathlib import Path

from revel_recurring.notices.compose import PersonMessage
from revel_recurring.notices.delivery import send_email

#: The exit status of the crash, for the test to recognise it.
CRASH_STATUS = 70


def _crash_now(when: str, message: PersonMessage) -> bool:
    spec = os.environ.get("REVEL_TEST_CRASH", "")
    point, _, address = spec.partition(":")
    if point != when or address != message.address:
        return False
    marker = Path(os.environ["REVEL_TEST_CRASH_MARKER"])
    if marker.exists():
        return False
    marker.write_text(f"{when} {message.message_id}\n")
    return True


def deliver_crashing_once(message: PersonMessage) -> None:
    """Send ``message`` by e-mail; die once before or after it as ``REVEL_TEST_CRASH`` says."""
    if _crash_now("before", message):
        os._exit(CRASH_STATUS)
    send_email(message)
    if _crash_now("after", message):
        os._exit(CRASH_STATUS)
