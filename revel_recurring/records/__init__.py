"""The records of a series' history, read side: kinds, the settings snapshot, rows touched.

:mod:`.kinds` names every kind of operation a record may have, with a label a
person reads; :mod:`.snapshot` turns a series (its rule and settings) into the
JSON an operation keeps as ``before`` and ``after``; :mod:`.rows` says what an
operation did to each row. All only read: the record itself is written by
:mod:`revel_recurring.services.toolbox.history` and read back by
:mod:`revel_recurring.history`.
"""
