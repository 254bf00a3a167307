// The octopus game in the browser: the page draws what the server sends (miaui_env/games/octopus/web.py
// describes the JSON) and sends back the person's decisions. Every text is set as text, never as HTML.
"use strict";

const DEFAULT_OPPONENT = "risk-aware";

let agents = [];
let game = null; // the game as the server last sent it
let busy = false;

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

function finalElement(view) {
  const final = view.final;
  const winners = final.winners.map((seat) => who(view, seat));
  return [
    h("h2", { text: final.winners.includes(view.seat) ? "You win!" : "Game over" }),
    h("div", { id: "winners", text: `Winner${winners.length > 1 ? "s" : ""}: ${winners.join(", ")}` + (final.truncated ? " (the session cap ended the game)" : "") }),
    h("ul", {}, final.totals.map((total, seat) => h("li", {
      text: `${who(view, seat)} (${view.players[seat]}): ${total}` +
        ` (sessions: ${final.session_scores.map((scores) => scores[seat]).join(" + ")})` }))),
    view.replay ? h("div", { class: "saved", text: `saved as a replay: ${view.replay}` }) : h("div", { class: "saved", text: view.replay_error || "" }),
    h("div", { class: "actions" },
      h("a", { href: `/api/octopus/games/${view.id}/replay`, download: `octopus-${view.id.slice(0, 6)}.json` },
        h("button", { type: "button", tabindex: "-1" }, "Download replay")),
      h("button", { type: "button", id: "deal-again", class: "primary", onclick: () => dealGame() }, "Deal again")),
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
  $("log").replaceChildren(...view.log.map((line) => h("li", { text: line })));
  $("log").lastElementChild?.scrollIntoView({ block: "nearest" });
  $("final").hidden = !view.final;
  if (view.final) $("final").replaceChildren(...finalElement(view));
  const first = $("actions").querySelector("button");
  if (first) first.focus(); else $("deal-again")?.focus();
}

async function act(action) {
  if (busy || !game || game.over) return;
  busy = true;
  document.querySelectorAll("#actions button").forEach((button) => { button.disabled = true; });
  // The decision names the step the page shows: a second send (or a stale page) is refused, not played.
  const view = await attempt(() => api("POST", `/api/octopus/games/${game.id}/actions`, { action, step: game.step }));
  busy = false;
  if (view) showGame(view);
  else document.querySelectorAll("#actions button").forEach((button) => { button.disabled = false; });
}

function opponentMenu(id, chosen) {
  const name = chosen || DEFAULT_OPPONENT;
  return h("select", { id }, agents.map((agent) => option(agent.name, agent.name, agent.name === name, agent.about)));
}

async function dealGame() {
  const n = Number($("players").value);
  const body = { num_players: n, seat: Number($("seat").value), view: $("view").value,
    opponents: [...Array(n - 1).keys()].map((k) => $(`opponent-${k + 1}`).value) };
  const view = await startGame("/api/octopus/games", body, game);
  if (view) showGame(view);
}

// -- watching a replay ---------------------------------------------------------------------------
// Every frame is the table after a decision, from the recall view of the seat watched from: every
// card that moved was shown to everyone (O4), so any seat's recall view shows the whole game.
const AUTOPLAY_MS = 700;
let watching = null; // {replay, data, frame, title}

function watchFinal(data) {
  const view = { seat: data.seat, players: data.players };
  const final = data.final;
  return [
    h("h2", { text: "Game over" }),
    h("div", { id: "watch-winners", text: `Winner${final.winners.length > 1 ? "s" : ""}: ${final.winners.map((seat) => `player_${seat} (${data.players[seat]})`).join(", ")}` +
      (final.truncated ? " (the session cap ended the game)" : "") }),
    h("ul", {}, final.totals.map((total, seat) => h("li", {
      text: `${who(view, seat)} (${data.players[seat]}): ${total} (sessions: ${final.session_scores.map((scores) => scores[seat]).join(" + ")})` }))),
  ];
}

function showFrame() {
  const { data, frame } = watching;
  const last = data.frames.length - 1;
  const current = data.frames[frame];
  $("watch-title").textContent = watching.title;
  $("step").textContent = `decision ${frame} of ${last}`;
  $("watch-table").replaceChildren(tableElement({ table: current.table, seat: data.seat, players: data.players, view: data.view }));
  $("watch-log").replaceChildren(...data.frames.slice(0, frame + 1).flatMap((shown) => shown.log).map((line) => h("li", { text: line })));
  $("watch-log").lastElementChild?.scrollIntoView({ block: "nearest" });
  $("watch-final").hidden = frame !== last;
  if (frame === last) $("watch-final").replaceChildren(...watchFinal(data));
  $("first").disabled = $("back").disabled = frame === 0;
  $("forward").disabled = $("last").disabled = frame === last;
}

function startWatching(text, data, title) {
  stopAutoplay();
  watching = { replay: text, data, frame: 0, title };
  $("watch-seat").replaceChildren(...data.players.map((name, seat) => option(seat, `player_${seat} (${name})`, seat === data.seat)));
  $("watch-board").hidden = false;
  $("watch-box").open = false;
  showFrame();
}

function step(to) {
  if (!watching) return;
  const frame = Math.max(0, Math.min(watching.data.frames.length - 1, to));
  if (frame === watching.frame) return;
  watching.frame = frame;
  showFrame();
}

async function watchText(text, title, seat) {
  const data = await attempt(() => api("POST", "/api/octopus/watch", { replay: text, seat: seat === undefined ? null : seat }));
  if (data) startWatching(data.replay, data, title);
  return data;
}

function wireWatching() {
  $("watch-box").addEventListener("toggle", () => { if ($("watch-box").open) loadShelf("/api/octopus/replays"); });
  $("open-saved").onclick = async () => {
    const name = $("shelf").value;
    if (!name) { showError("no saved replay is chosen: pick one from the list, or open a file"); return; }
    const data = await attempt(() => api("POST", "/api/octopus/watch", { file: name, seat: null }));
    if (data) startWatching(data.replay, data, name);
  };
  $("replay-file").onchange = async (event) => {
    const file = event.target.files[0];
    if (!file) return;
    await watchText(await file.text(), file.name);
    event.target.value = "";
  };
  $("watch-seat").onchange = async () => {
    const frame = watching.frame;
    const data = await attempt(() => api("POST", "/api/octopus/watch", { replay: watching.replay, seat: Number($("watch-seat").value) }));
    if (!data) return;
    watching.data = data;
    watching.frame = Math.min(frame, data.frames.length - 1);
    showFrame();
  };
  $("first").onclick = () => step(0);
  $("back").onclick = () => step(watching.frame - 1);
  $("forward").onclick = () => step(watching.frame + 1);
  $("last").onclick = () => step(watching.data.frames.length - 1);
  $("autoplay").onclick = () => toggleAutoplay(() => watching.frame, () => watching.data.frames.length, step, AUTOPLAY_MS);
  $("close-watch").onclick = () => { stopAutoplay(); watching = null; $("watch-board").hidden = true; };
}

async function init() {
  wireWatching();
  $("players").onchange = () => fillSeats(opponentMenu);
  $("seat").onchange = () => fillOpponents(opponentMenu);
  $("setup").onsubmit = (event) => { event.preventDefault(); dealGame(); };
  document.addEventListener("keydown", (event) => {
    if (watching && !$("watch-board").hidden && ["ArrowLeft", "ArrowRight"].includes(event.key)
      && !["SELECT", "INPUT", "TEXTAREA"].includes(document.activeElement.tagName)) {
      event.preventDefault();
      step(watching.frame + (event.key === "ArrowRight" ? 1 : -1));
      return;
    }
    if (!game || game.over || busy || event.ctrlKey || event.metaKey || event.altKey) return;
    if (["SELECT", "INPUT", "TEXTAREA"].includes(document.activeElement.tagName)) return;
    const choice = game.legal.find((legal) => legal.key === event.key.toLowerCase());
    if (!choice) return;
    event.preventDefault();
    act(choice.action);
  });
  const data = await attempt(() => api("GET", "/api/octopus/agents"));
  if (!data) return;
  agents = data.agents;
  fillSeats(opponentMenu);
}

init();
