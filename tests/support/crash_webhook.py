"""A webhook worker that dies once around the POST, for the worker tests.

Installed by tests/support/celery_app.py in the worker process when
``REVEL_TEST_WEBHOOK_CRASH`` says ``"before"`` or ``"after"``: the first POST
ends the process at once (``os._exit``, as a killed or out-of-memory worker ends:
no exception handler, no rollback of its own, no acknowledgement), either after
the delivery was claimed and before the endpoint saw the request, or right
after the endpoint answered, before the outcome is written. A file
(``REVEL_TEST_CRASH_MARKER``) remembers the crash, so the next run sends normally.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from celery.signals import task_prerun

#: The exit status of the crash, for the test to recognise it.
CRASH_STATUS = 71


def _crash_now(when: str) -> bool:
    if os.environ.get("REVEL_TEST_WEBHOOK_CRASH") != when:
        return False
    marker = Path(os.environ["REVEL_TEST_CRASH_MARKER"])
    if marker.exists():
        return False
    marker.write_text(f"{when}\n")
    return True


def install() -> None:
    """Wrap the worker's POST, once Django is set up, so that it dies once around it."""
    task_prerun.connect(_wrap_post, weak=False, dispatch_uid="revel_test_crash_webhook")


def _wrap_post(**kwargs: Any) -> None:
    # Imported when the first task starts: the models need the app registry.
    from revel_recurring import webhook_sending

    post = webhook_sending._post
    if getattr(post, "crashing", False):
        return

    def crashing_post(delivery: Any) -> tuple[int | None, str]:
        if _crash_now("before"):
            os._exit(CRASH_STATUS)
        answer = post(delivery)
        if _crash_now("after"):
            os._exit(CRASH_STATUS)
        return answer

    crashing_post.crashing = True  # type: ignore[attr-defined]
    webhook_sending._post = crashing_post
