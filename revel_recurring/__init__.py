"""revel-recurring: recurring event series with rolling-window materialization."""

__version__ = "0.1.0"
