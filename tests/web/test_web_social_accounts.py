"""Two accounts play a private table by invitation, chat and rematch, each in a browser context of their own.

Ann and Bob sign up in the header's dialog; Ann creates an invitation-only table with a bot and Bob sits
down through the invitation link. Someone who knows only the table id sees nothing of it (not the game,
not the chat); a spectator with the link reads the chat and may write only once Ann, the creator, turns
on the table's spectator-chat switch. After the game the rematch puts everyone at the next seat.
Every wait is on a condition of the page.
"""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from . import accounts
from .accounts import unique
from .conftest import play_together


def sign_up(page: Page, name: str) -> None:
    page.goto("/")
    accounts.sign_up(page, name)


def test_two_accounts_play_a_private_table_by_invitation_chat_and_rematch(new_page, player, shoot) -> None:
    ann_name, bob_name = unique("Ann"), unique("Bob")
    ann = new_page()
    sign_up(ann, ann_name)
    ann.select_option("#friends-players", "3")
    ann.select_option("#friends-seat-0", "me")
    ann.select_option("#friends-seat-1", "human")
    ann.select_option("#friends-seat-2", "random")
    expect(ann.locator("#friends-spectator-chat")).not_to_be_checked()  # spectators only read, unless asked
    ann.check("#friends-private")
    ann.click("#create-table")
    url = ann.locator("#share-links input[data-seat='1']").input_value()
    found = re.search(r"#/table/([\w-]+)\?seat=1&invite=[\w-]{32,}$", url)
    assert found, url
    table_id = found.group(1)
    ann.click("#go-to-table")
    ann.wait_for_selector(".game")
    expect(ann.locator(".seat[data-seat='0'] .name")).to_contain_text(ann_name)  # the account's name
    expect(ann.locator(".seat[data-seat='0'] .badge:not(.you)")).to_have_text("account")  # and marked as one

    bob = new_page()
    sign_up(bob, bob_name)
    bob.goto(url)
    bob.fill("#join-name", bob_name)
    bob.click("text=Sit down")
    bob.wait_for_selector(".game[data-phase=auction]")
    ann.wait_for_selector(f".seat[data-seat='1'] .name:has-text('{bob_name}')")
    expect(bob.locator("#spectator-chat-allowed")).to_have_count(0)  # the switch is the creator's alone

    ann.fill("#chat-input", "good luck, Bob")
    ann.press("#chat-input", "Enter")
    expect(bob.locator("#chat-log .chat-text")).to_have_text(["good luck, Bob"])
    expect(bob.locator("#chat-log li[data-seat='0'] .chat-name")).to_have_text(ann_name)
    bob.fill("#chat-input", "you too")
    bob.click("#chat-send")
    expect(ann.locator("#chat-log .chat-text")).to_have_text(["good luck, Bob", "you too"])

    # Someone who knows only the table id: no game, no chat, and the API answers neither.
    outsider = new_page(expect="403")
    outsider.goto(f"/#/watch/{table_id}")
    expect(outsider.locator(".error-box")).to_contain_text("private")
    expect(outsider.locator(".game")).to_have_count(0)
    expect(outsider.locator("#chat-log .chat-text")).to_have_count(0)
    assert ann_name not in outsider.inner_text("body")
    assert outsider.request.get(f"/api/tables/{table_id}").status == 403
    assert outsider.request.get(f"/api/tables/{table_id}/chat").status == 403

    # A friend with the invitation link, after both seats are taken: they watch, read, and may not write yet.
    fan = new_page()
    fan.goto(url)
    fan.click("#seat-taken a[href^='#/watch/']")
    fan.wait_for_selector(".game")
    expect(fan.locator("#chat-log .chat-text")).to_have_text(["good luck, Bob", "you too"])
    expect(fan.locator("#chat-input")).to_be_disabled()
    expect(fan.locator("#chat-readonly")).to_be_visible()
    expect(fan.locator("#spectator-chat-allowed")).to_have_count(0)

    # Ann lets spectators write: the fan's input opens without a reload, and everyone reads the message.
    ann.check("#spectator-chat-allowed")
    expect(fan.locator("#chat-input")).to_be_enabled()
    expect(fan.locator("#chat-readonly")).to_be_hidden()
    fan.fill("#chat-input", "go Ann!")
    fan.press("#chat-input", "Enter")
    for page in (ann, bob, fan):
        expect(page.locator("#chat-log .chat-text")).to_have_text(["good luck, Bob", "you too", "go Ann!"])
    expect(bob.locator("#chat-log li").last.locator(".chat-name")).to_have_text("Spectator")
    ann.reload()  # the setting is the table's, not the page's
    expect(ann.locator("#spectator-chat-allowed")).to_be_checked()
    shoot(fan, "social-accounts-spectator-chat")

    # The end screen's analysis answers the fan too: the invitation admits them to it (not 403 private_table). Its
    # answers are gathered as they come: a wait for one around the whole game (expect_response) had the page's 60 s
    # limit counted from the first move, which a game played slowly on a loaded machine outlasts.
    analysis: list[int] = []
    fan.on("response", lambda r: analysis.append(r.status) if f"/api/tables/{table_id}/analysis" in r.url else None)
    play_together(player(ann), player(bob))
    for page in (ann, bob, fan):
        page.wait_for_selector(".game[data-phase=over]")
    fan.wait_for_selector("#analysis[data-ready=true]")
    assert analysis and all(status in (200, 202) for status in analysis), analysis

    # Rematch: Ann offers, Bob accepts (the bot at once), and each is taken to the next seat of a new table.
    ann.click("#rematch")
    expect(bob.locator("#rematch-box")).to_contain_text(f"{ann_name} offers a rematch")
    bob.click("#rematch-accept")
    for page, seat in ((ann, "1"), (bob, "2")):
        page.wait_for_function("old => !location.hash.includes(old)", arg=table_id)
        page.wait_for_selector(f".game[data-seat='{seat}']")
    assert ann.url.split("#/table/")[1] == bob.url.split("#/table/")[1]
    expect(bob.locator(".seat[data-seat='1'] .name")).to_contain_text(ann_name)


def test_the_friends_form_can_open_the_chat_to_spectators_from_the_start(new_page) -> None:
    page = new_page()
    page.goto("/")
    page.fill("#friends-name", "Cy")
    page.select_option("#friends-players", "2")
    page.select_option("#friends-seat-1", "random")
    page.check("#friends-spectator-chat")
    page.click("#create-table")
    page.click("#go-to-table")
    page.wait_for_selector(".game")
    table_id = page.url.split("#/table/")[1]
    assert page.request.get(f"/api/tables/{table_id}").json()["table"]["spectator_chat"] is True
    expect(page.locator("#spectator-chat-allowed")).to_be_checked()  # the creator's switch says the same
    page.goto("/")
    expect(page.locator("#friends-spectator-chat")).to_be_checked()  # the form remembers the choice
