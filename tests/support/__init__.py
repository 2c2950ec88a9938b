"""Helpers the test trees share: builders, HTTP and browser drivers, worker processes."""
