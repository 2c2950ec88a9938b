"""System checks, ids ``revel_recurring.E001``...; each id is asserted in
tests/default/project/test_checks.py.

One module per subject: the host's event model (``event_model``), the settings
(``setting_values``), the visibility mapping (``visibility``) and the ``holidays`` data
the series were generated with (``holiday_data``), the time-zone data their dates
were placed with (``zone_data``). ``apps.py`` registers the
functions named here.
"""

from __future__ import annotations

from .event_model import check_event_model
from .holiday_data import HOLIDAY_DATA_NAMED, check_holiday_data
from .setting_values import (
    GENERATION_CHUNK_SIZE_MAX,
    check_dotted_paths,
    check_feed_cache,
    check_installed_apps,
    check_setting_values,
)
from .visibility import check_visibility_mapping
from .zone_data import ZONE_DATA_NAMED, check_zone_data

__all__ = [
    "GENERATION_CHUNK_SIZE_MAX",
    "HOLIDAY_DATA_NAMED",
    "ZONE_DATA_NAMED",
    "check_dotted_paths",
    "check_event_model",
    "check_feed_cache",
    "check_holiday_data",
    "check_installed_apps",
    "check_setting_values",
    "check_visibility_mapping",
    "check_zone_data",
]
