// @ts-check
// The replay viewer: a finished game, move by move (forward, back, jump to a round).
//
// Games from this server come with the engine's public view after every move
// (`GET /api/tables/{id}/replay`); a record file opened from disk is folded
// here from its deal and moves (ledger.js). Everything is public once a game
// is over, so every seat's coins and hand are shown.
import { actionText, analysisPanel } from "./analysis.js";
import { api, seats } from "./api.js";
import { felt, resultsTable, sceneFromView, seatsRow } from "./board.js";
import { distinctNames, h, shownName } from "./format.js";
import { has, t } from "./i18n.js";
import { explainResult, fold, setupFromRecord, winners } from "./ledger.js";
import { presetName } from "./rulesform.js";
import { describe } from "./story.js";

const SVG = "http://www.w3.org/2000/svg";
/** Auto-play's pace: a move a second, about a table's pace, slow enough to read the caption. */
const PLAY_MS = 1000;

/**
 * The decision of `seat` at `move` (a record's move: a bid or pass of one seat, or a sale round's houses) as the
 * analysis words actions: what that seat is about to do.
 */
function decisionAction(move, seat) {
  if (move.sell) return { sell: move.sell[seat] };
  return move.pass ? { pass: true } : { bid: move.bid };
}

/**
 * Play's triangle or pause's two bars, drawn: the media symbols (⏵ ⏸) are missing from common fonts (Debian's
 * DejaVu among them), where the button showed an empty box. Sized as the other buttons' arrows (1em).
 */
function playIcon(pause) {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 10 10");
  svg.setAttribute("class", "play-icon");
  svg.setAttribute("aria-hidden", "true");
  const path = document.createElementNS(SVG, "path");
  path.setAttribute("d", pause ? "M1.5 1h2.5v8h-2.5zM6 1h2.5v8h-2.5z" : "M2 1l7 4-7 4z");
  path.setAttribute("fill", "currentColor");
  svg.append(path);
  return svg;
}

export function showReplay(ctx, id) {
  const root = h("div.replay");
  ctx.app.replaceChildren(root, h("p.empty", null, t("replay.loading")));
  let alive = true;
  let keyHandler = null;

  async function load() {
    if (id === "file" || !id) {
      const text = sessionStorage.getItem("forsale.replay");
      if (!text) throw new Error(t("replay.noFile"));
      return { record: JSON.parse(text), frames: null };
    }
    return api.replay(id);
  }

  // A preset's starting coins are the server's (ledger.js keeps no copy of the rules).
  Promise.all([load(), api.rulesets()])
    .then(([data, rulesets]) => alive && start(data, rulesets.preset_knobs))
    .catch((e) => {
      if (alive) ctx.app.replaceChildren(h("p.error-box", { role: "alert" }, t("replay.failed", { reason: e.message }), " ", h("a", { href: "#/" }, t("nav.backToLobby"))));
    });

  function start({ record, frames }, presets) {
    const setup = setupFromRecord(record, presets);
    const folded = fold(setup);
    const total = setup.moves.length;
    const bots = record.bots || {};
    const names = distinctNames(setup.names.map((name, s) => shownName(name, s, { bot: bots[String(s)] })));
    const level = (spec) => (has(`seat.botLevel.${spec}`) ? t(`seat.botLevel.${spec}`) : spec); // in the page's words
    const badges = names.map((_, s) => (bots[String(s)] ? t("replay.botBadge", { name: level(bots[String(s)]) }) : ""));
    // "?step=k" opens the replay at move k (the analysis's costliest decisions link there); the end otherwise.
    const asked = Number(ctx.params.get("step"));
    let step = ctx.params.has("step") && Number.isInteger(asked) ? Math.max(0, Math.min(total, asked)) : total;
    // "&seat=s" beside it: the costly decision the analysis linked, seat s's at that move, marked while the replay
    // stands there (the seat outlined, a line naming it and the move about to be made), so the reader who came
    // to see it knows which one it is, at a sale round too, where every seat chooses at once.
    let decision = null;
    const decidingAt = (at, seat) => (Number.isInteger(seat) && seat >= 0 && seat < setup.n && at < total ? { step: at, seat } : null);
    if (ctx.params.has("step") && ctx.params.has("seat")) decision = decidingAt(step, Number(ctx.params.get("seat")));
    let lastShown = -1;

    // The step at which each round begins, for "jump to round".
    /** @type {{label: string, title?: string, step: number}[]} */
    const marks = [{ label: t("replay.mark.auction", { round: 1 }), title: t("replay.mark.deal"), step: 0 }];
    folded.events.forEach((evs, i) => {
      for (const ev of evs) {
        if (ev.kind === "round") {
          const round = ev.round + 1;
          marks.push({ label: t(`replay.mark.${ev.phase}`, { round }), title: t(`replay.mark.${ev.phase}Title`, { round }), step: i + 1 });
        }
        if (ev.kind === "end") marks.push({ label: t("replay.mark.end"), step: i + 1 });
      }
    });

    function viewAt(i) {
      if (frames) return frames[i];
      // A record file: build the public view's fields from the fold.
      const st = folded.states[i];
      return {
        players: setup.n,
        phase: st.phase,
        round: st.round,
        rounds: st.rounds,
        coins: st.coins,
        hands: st.hands,
        cheques_won: st.cheques,
        table: st.table,
        auction_tables: setup.auctionTables,
        takes: [],
        bids: st.bids.map((b) => Math.max(0, b)),
        active: st.active,
        high: st.high,
        turn: st.phase === "auction" ? st.turn : null,
        committed: Array(setup.n).fill(false),
        my_commit: null,
        scores: st.coins.map((c, s) => c + st.cheques[s].reduce((a, b) => a + b, 0)),
        _taken: st.taken,
      };
    }

    const slider = h("input", { type: "range", min: 0, max: total, value: step, id: "replay-slider", "aria-label": t("replay.slider") });
    slider.addEventListener("input", () => jump(Number(slider.value)));
    const counter = h("span", { id: "replay-step", "aria-live": "polite" });
    // Auto-play: one move a second, as watching a game at a table; any other move of the reader's stops it.
    let playing = null;
    const playButton = h("button.btn", { type: "button", id: "replay-play", onclick: () => (playing ? stop() : play()) });
    const showPlaying = () => {
      playButton.replaceChildren(playIcon(!!playing));
      playButton.title = t(playing ? "replay.pause" : "replay.play");
      playButton.setAttribute("aria-label", playButton.title);
    };
    function stop() {
      clearInterval(playing);
      playing = null;
      showPlaying();
    }
    function play() {
      if (step >= total) go(0);
      playing = setInterval(() => {
        if (!alive || !playButton.isConnected || step >= total) stop();
        else go(step + 1);
      }, PLAY_MS);
      showPlaying();
    }
    const jump = (i) => {
      stop();
      go(i);
    };
    showPlaying();
    const btn = (label, title, fn, id) => h("button.btn", { type: "button", title, "aria-label": title, onclick: fn, id }, label);
    const controls = h(
      "div.replay-controls.panel",
      null,
      btn("◀◀", t("replay.start"), () => jump(0), "replay-start"),
      btn("◀", t("replay.back"), () => jump(step - 1), "replay-back"),
      playButton,
      btn("▶", t("replay.forward"), () => jump(step + 1), "replay-forward"),
      btn("▶▶", t("replay.end"), () => jump(total), "replay-end"),
      slider,
      counter,
    );
    const roundsNav = h("nav.rounds-nav", { "aria-label": t("replay.jump"), id: "replay-rounds" });
    const stage = h("div.board", { id: "replay-stage" });
    // The analysis at the end links each costly decision to its moment: here that is a move of this replay, made in
    // place (no reload, no new history entry to step back through), the address kept true for sharing.
    stage.addEventListener("click", (event) => {
      const link = event.target.closest("a[data-step]");
      if (!link) return;
      event.preventDefault();
      history.replaceState(null, "", link.getAttribute("href"));
      decision = decidingAt(Number(link.dataset.step), Number(link.dataset.seat));
      jump(Number(link.dataset.step));
      controls.scrollIntoView({ block: "start" });
    });
    const caption = h("p.caption.panel", { id: "replay-caption", "aria-live": "polite" });
    const decisionNote = h("p.decision-note.panel", { id: "replay-decision", hidden: true });
    const record_link = id && id !== "file" ? h("a.btn", { href: api.recordUrl(id), download: `forsale-${id}.json` }, t("end.download")) : null;
    root.replaceChildren(
      h("div.panel", null, h("h2", null, t("replay.title", { names: names.join(", ") })), h("div.end-actions", { style: "justify-content:flex-start" }, record_link, h("a.btn.quiet", { href: "#/" }, t("replay.lobby")))),
      controls,
      roundsNav,
      caption,
      decisionNote,
      stage,
    );
    ctx.app.replaceChildren(root);
    const rules = typeof record.rules === "string" ? presetName(record.rules) : t("rules.custom");
    ctx.setInfo(t("replay.info", { rules, count: total }));

    function go(i) {
      step = Math.max(0, Math.min(total, i));
      draw();
    }

    function draw() {
      const v = viewAt(step);
      const st = folded.states[step];
      const sc = sceneFromView(v, { names, badges, me: null, foldState: st, reveal: step !== lastShown && step > 0 && !!setup.moves[step - 1]?.sell, showAll: true });
      if (!frames) sc.taken = v._taken;
      sc.replay = true; // a sale round is shown whole: no "still choosing" between its moves
      lastShown = step;
      slider.value = step;
      counter.textContent = t("replay.step", { step, total });
      const evs = step === 0 ? folded.opening : folded.events[step - 1];
      caption.textContent = evs.map((ev) => describe(ev, (s) => names[s], st.rounds).text).join(" ");
      let extra = null;
      if (st.phase === "over") {
        const win = winners(sc.scores, sc.coins);
        const analysis = id && id !== "file" ? analysisPanel(id, seats.get(id)?.token || null, names, null, setup.moves) : null;
        extra = h("div.end", null, h("p.verdict", { id: "verdict" }, explainResult(sc.scores, sc.coins, names)), resultsTable(sc, win), analysis);
      }
      stage.replaceChildren(seatsRow(sc), felt(sc, extra));
      const deciding = decision && decision.step === step ? decision.seat : null;
      decisionNote.hidden = deciding === null;
      if (deciding !== null) {
        decisionNote.textContent = t("replay.decision", { name: names[deciding], action: actionText(decisionAction(setup.moves[step], deciding)) });
        const seatEl = stage.querySelector(`.seat[data-seat="${deciding}"]`);
        seatEl?.classList.add("decision");
        const selling = setup.moves[step].sell; // at a sale, the house it is about to sell, in its hand
        if (selling) seatEl?.querySelector(`.card[data-house="${selling[deciding]}"]`)?.classList.add("decision");
      }
      let here = 0;
      marks.forEach((mk, j) => {
        if (mk.step <= step) here = j;
      });
      roundsNav.replaceChildren(
        ...marks.map((mk, j) =>
          h(`button.btn${j === here ? ".here" : ""}`, { type: "button", title: mk.title || mk.label, "aria-current": j === here ? "step" : null, onclick: () => jump(mk.step), dataset: { step: mk.step } }, mk.label),
        ),
      );
      for (const b of controls.querySelectorAll("button")) {
        const which = b.id;
        b.disabled = (step === 0 && (which === "replay-start" || which === "replay-back")) || (step === total && (which === "replay-end" || which === "replay-forward"));
      }
    }

    keyHandler = (event) => {
      if (event.target.tagName === "INPUT" || event.target.tagName === "SELECT") return;
      if (event.key === "ArrowRight") jump(step + 1);
      else if (event.key === "ArrowLeft") jump(step - 1);
      else if (event.key === "Home") jump(0);
      else if (event.key === "End") jump(total);
      else return;
      event.preventDefault();
    };
    document.addEventListener("keydown", keyHandler);
    draw();
  }

  return () => {
    alive = false;
    if (keyHandler) document.removeEventListener("keydown", keyHandler);
  };
}
