"""The default host's tests (tests/hosts/testapp, tests.settings), one folder per concern."""
