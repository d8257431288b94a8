"""A private table by invitation, its chat and a rematch, played from two browser contexts (two people)."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from .conftest import play_together

# The contrast ratio (WCAG) of an element's text against its own background colour.
CONTRAST = """(selector) => {
  const el = document.querySelector(selector);
  const style = getComputedStyle(el);
  const lum = (css) => {
    const [r, g, b] = css.match(/[\\d.]+/g).slice(0, 3).map(Number).map((c) => c / 255)
      .map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const [hi, lo] = [lum(style.color), lum(style.backgroundColor)].sort((a, b) => b - a);
  return (hi + 0.05) / (lo + 0.05);
}"""
HOSTILE = "<b>bold?</b> <script>window.pwned = 1</script> '; DROP TABLE x; -- 👋"


def test_a_private_table_by_invitation_with_chat_and_a_rematch(new_page, player, shoot):
    ann = new_page()
    ann.goto("/")
    ann.fill("#friends-name", "Ann")
    ann.select_option("#friends-players", "2")
    ann.select_option("#friends-seat-0", "me")
    ann.select_option("#friends-seat-1", "human")
    ann.check("#friends-private")
    ann.click("#create-table")
    url = ann.locator("#share-links input[data-seat='1']").input_value()
    assert re.search(r"#/table/[\w-]+\?seat=1&invite=[\w-]{32,}$", url), url
    table_id = re.search(r"#/table/([\w-]+)", url).group(1)
    ann.click("#go-to-table")
    ann.wait_for_selector(".game")

    # Knowing the id is not enough: the table is nowhere in the lobby, and its seat link without the code fails.
    cy = new_page(expect="403")
    cy.goto("/")
    # The list is drawn (not "Looking…"), and no entry of it leads to this table (other tests' tables, Ann's
    # among them, may be listed on the shared server: the table's id is what says it is this one).
    expect(cy.locator("#open-tables")).not_to_contain_text("Looking")
    expect(cy.locator(f"#open-tables a[href*='{table_id}']")).to_have_count(0)
    cy.goto(f"/#/table/{table_id}?seat=1")
    expect(cy.locator(".error-box")).to_contain_text("private")

    bob = new_page()
    bob.goto(url)
    bob.fill("#join-name", "Bob")
    bob.click("text=Sit down")
    bob.wait_for_selector(".game[data-phase=auction]")
    ann.wait_for_selector(".seat[data-seat='1'] .name:has-text('Bob')")

    # Chat: typed and sent with Enter, shown as text on both pages, never as HTML.
    ann.fill("#chat-input", HOSTILE)
    ann.press("#chat-input", "Enter")
    expect(bob.locator("#chat-log .chat-text")).to_have_text([HOSTILE])
    expect(ann.locator("#chat-log .chat-text")).to_have_text([HOSTILE])
    assert bob.locator("#chat-log b, #chat-log script").count() == 0
    assert bob.evaluate("() => window.pwned") is None
    assert bob.get_attribute("#chat-live", "role") == "log"  # a live region around the list of messages
    assert bob.locator("label[for=chat-input]").inner_text() == "Message"
    bob.fill("#chat-input", "hi Ann")
    bob.click("#chat-send")
    expect(ann.locator("#chat-log .chat-text")).to_have_text([HOSTILE, "hi Ann"])
    # Bob mutes Ann: her messages go from his page, and stay gone after a reload.
    bob.click("#chat-log li[data-seat='0'] .chat-mute")
    expect(bob.locator("#chat-log .chat-text")).to_have_text(["hi Ann"])
    bob.reload()
    bob.wait_for_selector(".game")
    expect(bob.locator("#chat-log .chat-text")).to_have_text(["hi Ann"])
    expect(bob.locator("#chat-muted")).to_contain_text("Ann")
    shoot(bob, "social-chat")

    play_together(player(ann), player(bob))
    ann.wait_for_selector("#end")
    bob.wait_for_selector("#end")

    # Rematch: Ann offers, Bob accepts, and both are taken to the new table with the seats rotated.
    ann.click("#rematch")
    expect(ann.locator("#rematch-box")).to_contain_text("Waiting for: Bob")
    expect(bob.locator("#rematch-box")).to_contain_text("Ann offers a rematch")
    expect(ann.locator("#rematch-box")).to_contain_text("You offered a rematch.")  # not "You offers"
    # Bob's Decline button is legible on the felt: dark words on its light face, 4.5:1 at least.
    assert bob.evaluate(CONTRAST, "#rematch-decline") >= 4.5
    shoot(bob, "social-rematch-offer")
    bob.click("#rematch-accept")
    for page, seat in ((ann, "1"), (bob, "0")):
        page.wait_for_function("old => !location.hash.includes(old)", arg=table_id)
        page.wait_for_selector(f".game[data-seat='{seat}']")
    assert ann.url.split("#/table/")[1] == bob.url.split("#/table/")[1]
