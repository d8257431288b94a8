"""The cards as drawn, in every language (web/static/js/cards.js and css/style.css), in Debian's Chromium.

A cheque's words are the printed card's: the amount above the signature rule, "pay to the bearer" on that rule.
In French, Dutch, Italian and German the amount wrapped onto the rule (it read as crossed out) and the bearer's
words wrapped onto two lines over the card's bottom edge; each is checked here from the laid-out boxes.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playwright.sync_api import Page

from .test_web_i18n import LANGUAGES

# A 14k and a 15k cheque drawn by the page's own module, in the language asked for, at the widths the page uses.
_CHEQUE = """async ([code, width]) => {
  const i18n = await import('/js/i18n.js');
  await i18n.setLanguage(code);
  const { chequeCard } = await import('/js/cards.js');
  const box = document.createElement('div');
  box.style.setProperty('--card-w', width + 'px');
  document.body.append(box);
  const out = [];
  for (const value of [14, 15]) {
    const card = chequeCard(value);
    box.append(card);
    const rect = (sel) => card.querySelector(sel).getBoundingClientRect();
    const sign = card.querySelector('.sign');
    const amount = card.querySelector('.amount');
    out.push({
      card: card.getBoundingClientRect().toJSON(), amount: rect('.amount').toJSON(), sign: rect('.sign').toJSON(),
      signLines: sign.getClientRects().length, signFits: sign.scrollWidth <= sign.clientWidth,
      signLine: parseFloat(getComputedStyle(sign).lineHeight), amountLine: parseFloat(getComputedStyle(amount).lineHeight),
    });
  }
  box.remove();
  return out;
}"""


@pytest.mark.parametrize("width", [78, 62])
def test_a_cheques_amount_clears_the_rule_and_its_bearer_words_fit_one_line(
    new_page: Callable[..., Page], width: int
) -> None:
    page = new_page()
    page.goto("/")
    for code in LANGUAGES:
        for got in page.evaluate(_CHEQUE, [code, width]):
            card, amount, sign = got["card"], got["amount"], got["sign"]
            where = f"{code} at {width} px: {got}"
            assert got["signFits"], f"the bearer's words are cut: {where}"
            assert sign["height"] <= got["signLine"] + 3, f"the bearer's words wrap: {where}"
            assert amount["height"] <= got["amountLine"] + 1, f"the amount wraps: {where}"
            assert amount["bottom"] <= sign["top"], f"the amount sits on the rule: {where}"
            assert card["left"] <= amount["left"] and amount["right"] <= card["right"], f"the amount overflows: {where}"
            assert sign["bottom"] <= card["bottom"], where


# The post-game chart of a six-seat game of 30 moves, drawn by the page's own module at a phone's width.
_CHART = """async (code) => {
  const i18n = await import('/js/i18n.js');
  await i18n.setLanguage(code);
  const { chanceChart } = await import('/js/analysis.js');
  // Six seats: five auctions where everyone passes (five passes each), then five sale rounds; 30 moves.
  const moves = [...Array.from({length: 25}, () => ({pass: true})), ...Array.from({length: 5}, () => ({sell: [1]}))];
  const chances = Array.from({length: 31}, (_, i) => [0.4, 0.2, 0.1, 0.1, 0.1, 0.1].map((c) => c + (i % 3) / 100));
  const panel = document.createElement('section');
  panel.className = 'panel analysis';
  panel.append(chanceChart(chances, ['Zoë', 'hasard (robot) 2', 'hasard (robot) 3', 'Bob', 'Cy', 'Dee'], moves));
  document.getElementById('app').replaceChildren(panel);
  document.querySelector('.chart-data').open = true;
  const label = document.querySelector('#chance-chart text');
  const box = document.querySelector('.chance-table-box');
  const chart = document.querySelector('#chance-chart').getBoundingClientRect();
  const texts = [...document.querySelectorAll('#chance-chart > text')].map((t) => t.getBoundingClientRect());
  const marks = [...document.querySelectorAll('#chance-chart .round-mark')].map((t) => t.getBoundingClientRect());
  return {
    page: document.documentElement.scrollWidth, view: innerWidth,
    boxScrolls: box.scrollWidth > box.clientWidth,
    label: label.getBoundingClientRect().height, percent: label.textContent,
    cut: texts.filter((r) => r.left < chart.left || r.right > chart.right || r.top < chart.top || r.bottom > chart.bottom).length,
    marksOverlap: marks.slice(1).filter((r, i) => r.left < marks[i].right).length,
    cells: [...document.querySelectorAll('#chance-table td')].slice(0, 6).map((td) => td.getClientRects().length),
  };
}"""


def test_the_charts_numbers_scroll_in_their_own_box_on_a_phone(new_page: Callable[..., Page]) -> None:
    page = new_page(width=390, height=844)
    page.goto("/")
    got = page.evaluate(_CHART, "fr")
    assert got["page"] <= got["view"], f"the table widens the page: {got}"
    assert got["boxScrolls"], got  # six seats are wider than a phone: the box scrolls, not the page
    assert got["label"] >= 10, f"the chart's labels are too small to read: {got}"
    assert got["cut"] == 0, f"a label is cut by the chart's edge: {got}"
    assert got["marksOverlap"] == 0, f"round marks run into each other: {got}"
    assert " " not in got["percent"], f"a breaking space in {got['percent']!r}"  # "40 %" stays on one line
    assert got["cells"] == [1] * 6, got
