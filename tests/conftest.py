"""Fixtures for every test file: the browser app's `app` and `client` (tests/web_helpers.py), which
the Miaui and the octopus page tests share."""

pytest_plugins = ("web_helpers",)
