// The octopus game in the browser: the page draws what the server sends (miaui_env/games/octopus/web.py
// describes the JSON) and sends back the person's decisions. Every text is set as text, never as HTML.
"use strict";

const API = "/api/octopus";
const DEFAULT_OPPONENT = "risk-aware";
const AUTOPLAY_MS = 700;

let agents = [];

function who(view, seat) { return seat === view.seat ? "you" : `player_${seat}`; }

function cardList(cards) {
  if (cards === null) return h("span", { class: "hint", text: "face down" });
  if (!cards.length) return h("span", { class: "empty", text: "none" });
  return h("span", { class: "cards" }, cards.map((card) => h("span", { class: "fish", text: card })));
}

function tableElement(view) {
  const table = view.table;
  const status = h("div", { class: "status" },
    h("span", { class: "round", text: `Session ${table.session}` }),
    h("span", { id: "deck-count", text: `deck ${table.deck_size} cards` }),
    h("span", { text: `discard pile ${table.discard_size}` }),
    h("span", { class: "viewer", text: view.view === "recall" ? "you see the table + a perfect memory" : "you see the table" }));
  const active = table.seats.find((row) => row.to_act);
  const rowOwner = active ? `${who(view, active.seat)}` : "nobody";
  const row = h("div", { class: "space", id: "row" }, h("div", { class: "name", text: `The row (${rowOwner} flipping)` }), cardList(table.row));
  const head = h("tr", {}, ["Player", "Plays", "Total", "Cards", "Session score"].map((text) => h("th", { scope: "col", text })));
  // Each seat's collection on a row of its own under its figures, across the table: the chips wrap
  // there, so a long collection stays a few lines high on a phone.
  const rows = table.seats.map((seat) => [
    h("tr", { class: seat.seat === view.seat ? "you" : null, id: `seat-${seat.seat}` },
      h("th", { scope: "row", text: `${who(view, seat.seat)}${seat.to_act ? " (to act)" : ""}` }),
      h("td", { text: view.players[seat.seat] }),
      h("td", { text: seat.total }),
      h("td", { text: seat.collection_size }),
      h("td", { title: seat.session_score === null ? "its collection lies face down: the table view hides what it scores" : null,
        text: seat.session_score === null ? "hidden" : seat.session_score })),
    h("tr", { class: `collection-row${seat.seat === view.seat ? " you" : ""}`, id: `collection-${seat.seat}` },
      h("td", { colspan: 5 }, h("span", { class: "hint", text: "collection: " }), cardList(seat.collection)))]);
  const seats = h("table", { class: "octopus-seats", "aria-label": "players" }, h("thead", {}, head), h("tbody", {}, rows));
  const parts = [status, row, seats];
  if (table.last_theft) {
    const theft = table.last_theft;
    parts.push(h("div", { class: "hint", text: `Last theft: ${who(view, theft.thief)} tried to steal ${theft.k} from ${who(view, theft.target)}, rolled ${theft.roll}` +
      (theft.moved.length ? `; moved ${theft.moved.join(", ")}` : "") }));
  }
  if (table.discard !== null) parts.push(h("div", { class: "hint" }, `Discard pile (${table.discard_octopuses} octopuses): `, cardList(table.discard)));
  return h("div", {}, parts);
}

// Each seat's total, with the sessions' scores that add up to it.
function totalsList(view, final) {
  return h("ul", {}, final.totals.map((total, seat) => h("li", {
    text: `${who(view, seat)} (${view.players[seat]}): ${total} (sessions: ${final.session_scores.map((scores) => scores[seat]).join(" + ")})` })));
}

function finalElement(view) {
  const final = view.final;
  const winners = final.winners.map((seat) => who(view, seat));
  return [
    h("h2", { text: final.winners.includes(view.seat) ? "You win!" : "Game over" }),
    h("div", { id: "winners", text: `Winner${winners.length > 1 ? "s" : ""}: ${winners.join(", ")}` + (final.truncated ? " (the session cap ended the game)" : "") }),
    totalsList(view, final),
    ...gameOverParts(view, null, { href: `${API}/games/${view.id}/replay`, file: `octopus-${view.id.slice(0, 6)}.json` }, dealGame),
  ];
}

function showGame(view) {
  game = view;
  $("board").hidden = false;
  $("table").replaceChildren(tableElement(view));
  $("actions").replaceChildren(...view.legal.map((choice) => h("button", {
    type: "button", id: `action-${choice.action}`, class: "held", disabled: busy, "aria-keyshortcuts": choice.key,
    title: `key ${choice.key}`, onclick: () => act(choice.action) },
    `${choice.label} [${choice.key}]`,
    // the odds on the button itself: a touch screen shows no tooltip
    choice.odds ? h("span", { class: "odds", text: `succeeds with chance ${choice.odds}` }) : null)));
  $("decision-hint").textContent = view.over ? "the game is over" : (view.table.asked === "theft" ? "an octopus: try a theft?" : "stop or flip?");
  showLog("log", view.log.map((line) => h("li", { text: line })));
  $("final").hidden = !view.final;
  if (view.final) $("final").replaceChildren(...finalElement(view));
  focusChoice();
}

function opponentMenu(id, chosen) {
  return agentMenu(id, agents, chosen || DEFAULT_OPPONENT);
}

async function dealGame() {
  const view = await startGame(`${API}/games`, tableChoice("num_players"));
  if (view) showGame(view);
}

// -- watching a replay ---------------------------------------------------------------------------
// Every frame is the table after a decision, from the recall view of the seat watched from: every
// card that moved was shown to everyone (O4), so any seat's recall view shows the whole game.
function watchFinal(data) {
  const view = { seat: data.seat, players: data.players };
  const final = data.final;
  return [
    h("h2", { text: "Game over" }),
    h("div", { id: "watch-winners", text: `Winner${final.winners.length > 1 ? "s" : ""}: ${final.winners.map((seat) => `player_${seat} (${data.players[seat]})`).join(", ")}` +
      (final.truncated ? " (the session cap ended the game)" : "") }),
    totalsList(view, final),
  ];
}

function drawWatched(watched) {
  const { data, frame } = watched;
  $("watch-table").replaceChildren(tableElement({ table: data.frames[frame].table, seat: data.seat, players: data.players, view: data.view }));
  showLog("watch-log", data.frames.slice(0, frame + 1).flatMap((shown) => shown.log).map((line) => h("li", { text: line })));
}

async function init() {
  // No spectator in the seat menu: any seat's recall view shows the whole game.
  describePage({ api: API, show: showGame, autoplayMs: AUTOPLAY_MS, draw: drawWatched, final: (watched) => watchFinal(watched.data) });
  $("watch-box").addEventListener("toggle", () => { if ($("watch-box").open) loadShelf(); });
  $("close-watch").onclick = closeWatching;
  wireSetup(opponentMenu, dealGame);
  document.addEventListener("keydown", (event) => {
    if (!game || game.over || busy || !pageKey(event)) return;
    const choice = game.legal.find((legal) => legal.key === event.key.toLowerCase());
    if (!choice) return;
    event.preventDefault();
    act(choice.action);
  });
  const data = await attempt(() => api("GET", `${API}/agents`));
  if (!data) return;
  agents = data.agents;
  fillSeats(opponentMenu);
}

init();
