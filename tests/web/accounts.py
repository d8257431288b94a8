"""Accounts in the page (a helper module, not a test file): a new name, and signing up through the page's own
dialog, as a person does, shared by the browser tests that need someone signed in."""

from __future__ import annotations

import uuid

from playwright.sync_api import Page, expect

PASSWORD = "correct horse battery staple"


def unique(prefix: str) -> str:
    """A name no other test on the shared server has (names are at most 24 characters)."""
    return f"{prefix}{uuid.uuid4().hex[:10]}"


def sign_up(page: Page, name: str) -> None:
    """Make the account ``name`` in the page's sign-up dialog (from wherever the page is) and wait until the page
    shows it signed in."""
    page.click("#sign-up")
    page.fill("#account-name", name)
    page.fill("#account-password", PASSWORD)
    page.click("#signup-submit")
    expect(page.locator("#account-name-link")).to_have_text(name)
