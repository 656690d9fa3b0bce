"""The browser for the pages' tests: one Chromium for the session (``chromium_session``),
handed to each test on a blank page (``chromium``)."""

from tests.support.web import chromium, chromium_session

__all__ = ["chromium", "chromium_session"]  # the fixtures, found by name
