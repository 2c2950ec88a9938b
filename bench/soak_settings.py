"""The example project's settings for the soak's workers and dispatchers: notifier off.

The notifier (audience queries, a DigestRecord, e-mails to the console) is host
work, as in bench/generation.py; the soak is about generation's locking.
"""

from example_project.settings import *  # noqa: F403

REVEL_RECURRING_NOTIFIER = None
