"""A series' history, read side: the kinds of operation and the settings snapshot.

:mod:`.kinds` names every kind of operation a record may have, with a label a
person reads; :mod:`.snapshot` turns a series (its rule and settings) into the
JSON an operation keeps as ``before`` and ``after``. Both only read: the record
itself is written by :mod:`revel_recurring.services.toolbox.history`.
"""
