"""The example project's settings for the soak's workers and dispatchers.

The notifier (audience queries, a DigestRecord, e-mails to the console) is host
work, as in bench/generation.py; the soak is about generation's locking. DEBUG
is off as on a production worker: with it on, Django keeps every query's SQL
(Celery warns about the leak), which would swamp the memory figures.
"""

from example_project.settings import *  # noqa: F403

DEBUG = False
REVEL_RECURRING_NOTIFIER = None
