"""Old home of the lifecycle helpers, kept while branches written against it merge.

Everything lives in tests/factories.py; import from there. Delete this module once
no test imports it (see docs/decisions/one-source-per-fact.md).
"""

from tests.factories import *  # noqa: F403
