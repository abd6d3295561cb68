"""Fixtures for the browser tests: ``browser`` (session), ``built_site``
(the real site built once per session), ``http_server`` and ``csp_server``."""

from __future__ import annotations

import pytest

from conftest_explainer import CSP, Server, launch, need

try:
    from playwright.sync_api import sync_playwright
except ImportError:  # pragma: no cover - reported by the fixture
    sync_playwright = None


@pytest.fixture(scope="session")
def playwright_instance():
    need(sync_playwright is not None, "playwright is not installed")
    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="session")
def browser(playwright_instance):
    b = launch(playwright_instance)
    yield b
    b.close()


@pytest.fixture(scope="session")
def built_site(real_site):
    """The real site, built once per session by tests/conftest.py."""
    return real_site


@pytest.fixture(scope="session")
def http_server(built_site):
    server = Server(built_site)
    yield server
    server.close()


@pytest.fixture(scope="session")
def csp_server(built_site):
    server = Server(built_site, csp=CSP)
    yield server
    server.close()
