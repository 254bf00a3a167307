// Any registered game in the browser, in its own words: the page the app serves at /<game> for a game
// that gives no page of its own (miaui_env/apps/web/any_game.py describes the JSON). Plain text: your
// seat's view, your legal actions as buttons in the game's words, and what happened. Every text is set
// as text, never as HTML: a replay's player names are anyone's to write.
"use strict";

// The page is served at /<game>: its first path segment names the game.
const GAME = decodeURIComponent(location.pathname.split("/").filter(Boolean)[0] || "");
const API = `/api/${encodeURIComponent(GAME)}`;
const AUTOPLAY_MS = 900;

let about = null; // the game's tables, as GET /api/<game>/agents sends them
let agents = [];
let game = null; // the person's game as the server last sent it
let busy = false;
let watching = null; // {replay, data, frame, title}

function who(seat, you) { return seat === you ? "you" : `player_${seat}`; }

function linesElement(lines) {
  return h("div", { class: "lines" }, lines.map((line) => h("p", { text: line })));
}

function capitalized(text) { return text.charAt(0).toUpperCase() + text.slice(1); }

// -- a person's game -------------------------------------------------------------------------------
function finalElement(final, players, you) {
  const won = final.winners;
  const heading = won.includes(you) ? (won.length > 1 ? "You share the win!" : "You win!") : "Game over";
  return [
    h("h2", { text: heading }),
    h("div", { class: "winners", text: `Won by ${won.map((seat) => `${who(seat, you)} (${players[seat]})`).join(" and ")}` }),
    h("table", { "aria-label": "final scores" }, h("tbody", {}, final.scores.map((score, seat) => h("tr", { class: won.includes(seat) ? "won" : null, "data-seat": seat },
      h("td", { text: who(seat, you) }), h("td", { text: players[seat], title: players[seat] }),
      h("td", { class: "score", text: score }), h("td", { text: won.includes(seat) ? "winner" : "" }))))),
  ];
}

function showGame(view) {
  game = view;
  history.replaceState(null, "", `#game=${view.id}`);
  $("board").hidden = false;
  $("introduction").replaceChildren(...view.introduction.map((line) => h("p", { text: line })));
  $("seat-view").replaceChildren(h("h2", { text: `Your view: player_${view.seat}, ${view.num_players} players` }), linesElement(view.seat_view));
  $("actions").replaceChildren(...view.legal.map((choice, k) => h("button", {
    type: "button", id: `action-${choice.action}`, disabled: busy, "aria-keyshortcuts": k < 9 ? String(k + 1) : null,
    title: k < 9 ? `key ${k + 1}` : null, onclick: () => act(choice.action) },
  choice.label, k < 9 ? h("span", { class: "key", text: ` [${k + 1}]` }) : null)));
  $("decision-hint").textContent = view.over ? "the game is over" : (view.legal.length ? "choose one" : "the others are deciding");
  $("log").replaceChildren(...view.log.map((entry) => h("li", {}, entry.text,
    entry.seen.length ? h("ul", { class: "seen", "aria-label": "what changed in your view" }, entry.seen.map((line) => h("li", { text: line }))) : null)));
  $("log").lastElementChild?.scrollIntoView({ block: "nearest" });
  $("final").hidden = !view.final;
  if (view.final) {
    const saved = h("div", { class: "saved", text: view.replay ? `saved as a replay: ${view.replay}` : (view.replay_error || "") });
    const actions = h("div", { class: "actions" },
      h("button", { type: "button", id: "watch-this", onclick: () => watchFinishedGame() }, "Watch this game"),
      h("a", { href: `${API}/games/${view.id}/replay`, download: `${GAME}-${view.id.slice(0, 6)}.json` },
        h("button", { type: "button", id: "download", tabindex: "-1" }, "Download replay")),
      h("button", { type: "button", id: "deal-again", class: "primary", onclick: () => dealGame() }, "Deal again"));
    $("final").replaceChildren(...finalElement(view.final, view.players, view.seat), saved, actions);
  }
  const first = $("actions").querySelector("button");
  if (first) first.focus(); else $("deal-again")?.focus();
}

async function act(action) {
  if (busy || !game || game.over) return;
  busy = true;
  document.querySelectorAll("#actions button").forEach((button) => { button.disabled = true; });
  // The decision names the step the page shows: a second send (or a stale page) is refused, not played.
  const view = await attempt(() => api("POST", `${API}/games/${game.id}/actions`, { action, step: game.step }));
  busy = false;
  if (view) showGame(view);
  else document.querySelectorAll("#actions button").forEach((button) => { button.disabled = false; });
}

function opponentMenu(id, chosen) {
  const k = Number(id.split("-").pop()) - 1; // opponent-1 sits on the person's left
  const defaults = about.default_opponents.length ? about.default_opponents : [agents[0].name];
  const name = chosen || defaults[k % defaults.length];
  return h("select", { id }, agents.map((agent) => option(agent.name, agent.name, agent.name === name, agent.about)));
}

async function dealGame() {
  const n = Number($("players").value);
  const body = { num_players: n, seat: Number($("seat").value), view: $("view").value,
    opponents: [...Array(n - 1).keys()].map((k) => $(`opponent-${k + 1}`).value) };
  const view = await startGame(`${API}/games`, body, game);
  if (view) showGame(view);
}

async function resumeGame() {
  const match = /^#game=([A-Za-z0-9_-]+)$/.exec(location.hash);
  if (!match) return;
  const view = await attempt(() => api("GET", `${API}/games/${match[1]}`));
  if (view) {
    $("setup-box").open = false;
    showGame(view);
  } else history.replaceState(null, "", location.pathname);
}

// -- watching a replay ---------------------------------------------------------------------------
// Every frame is the table after a decision: the spectator's (every decision in words) or one
// seat's view (its own decisions in words, the others' as who decided).
function showFrame() {
  const { data, frame } = watching;
  const last = data.frames.length - 1;
  $("watch-title").textContent = watching.title;
  $("step").textContent = `decision ${frame} of ${last}`;
  const heading = data.seat === null ? "The table (spectator)" : `player_${data.seat}'s view (${data.players[data.seat]})`;
  $("watch-view").replaceChildren(h("h2", { text: heading }), linesElement(data.frames[frame].lines));
  $("watch-log").replaceChildren(...data.frames.slice(1, frame + 1).map((shown) => h("li", { text: shown.move })));
  $("watch-log").lastElementChild?.scrollIntoView({ block: "nearest" });
  $("watch-final").hidden = frame !== last;
  if (frame === last) $("watch-final").replaceChildren(...finalElement(data.final, data.players, data.seat));
  $("first").disabled = $("back").disabled = frame === 0;
  $("forward").disabled = $("last").disabled = frame === last;
}

function startWatching(data, title) {
  stopAutoplay();
  watching = { replay: data.replay, data, frame: 0, title };
  $("watch-seat").replaceChildren(option("", "spectator (every decision)", data.seat === null),
    ...data.players.map((name, seat) => option(seat, `player_${seat} (${name})`, seat === data.seat)));
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
  const data = await attempt(() => api("POST", `${API}/watch`, { replay: text, seat: seat === undefined ? null : seat }));
  if (data) startWatching(data, title);
  return data;
}

async function watchFinishedGame() {
  const text = await attempt(async () => {
    const response = await fetch(`${API}/games/${game.id}/replay`);
    if (!response.ok) throw new Error((await response.json()).error);
    return response.text();
  });
  if (text !== undefined) await watchText(text, "your game", game.seat);
}

function wireWatching() {
  $("watch-box").addEventListener("toggle", () => { if ($("watch-box").open) loadShelf(`${API}/replays`); });
  $("open-saved").onclick = async () => {
    const name = $("shelf").value;
    if (!name) { showError("no saved replay is chosen: pick one from the list, or open a file"); return; }
    const data = await attempt(() => api("POST", `${API}/watch`, { file: name, seat: null }));
    if (data) startWatching(data, name);
  };
  $("replay-file").onchange = async (event) => {
    const file = event.target.files[0];
    if (!file) return;
    await watchText(await file.text(), file.name);
    event.target.value = "";
  };
  $("watch-seat").onchange = async () => {
    const seat = $("watch-seat").value === "" ? null : Number($("watch-seat").value);
    const data = await attempt(() => api("POST", `${API}/watch`, { replay: watching.replay, seat }));
    if (!data) return;
    watching.data = data;
    watching.frame = Math.min(watching.frame, data.frames.length - 1);
    showFrame();
  };
  $("first").onclick = () => step(0);
  $("back").onclick = () => step(watching.frame - 1);
  $("forward").onclick = () => step(watching.frame + 1);
  $("last").onclick = () => step(watching.data.frames.length - 1);
  $("autoplay").onclick = () => toggleAutoplay(() => watching.frame, () => watching.data.frames.length, step, AUTOPLAY_MS);
  $("close-watch").onclick = () => { stopAutoplay(); watching = null; $("watch-board").hidden = true; };
}

// -- the page ---------------------------------------------------------------------------------------
function fillTable() {
  const sizes = [];
  for (let n = about.min_players; n <= about.max_players; n++) sizes.push(n);
  $("players").replaceChildren(...sizes.map((n) => option(n, n, n === about.default_players)));
  $("view").replaceChildren(...about.views.map((view, k) => option(view, view, k === 0)));
  $("view-choice").hidden = about.views.length < 2; // one view: nothing to choose
  fillSeats(opponentMenu);
}

async function init() {
  wireWatching();
  $("players").onchange = () => fillSeats(opponentMenu);
  $("seat").onchange = () => fillOpponents(opponentMenu);
  $("setup").onsubmit = (event) => { event.preventDefault(); dealGame(); };
  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey || ["SELECT", "INPUT", "TEXTAREA"].includes(document.activeElement.tagName)) return;
    if (watching && !$("watch-board").hidden && ["ArrowLeft", "ArrowRight"].includes(event.key)) {
      event.preventDefault();
      step(watching.frame + (event.key === "ArrowRight" ? 1 : -1));
      return;
    }
    if (!game || game.over || busy || !/^[1-9]$/.test(event.key)) return;
    const choice = game.legal[Number(event.key) - 1];
    if (!choice) return;
    event.preventDefault();
    act(choice.action);
  });
  const data = await attempt(() => api("GET", `${API}/agents`));
  if (!data) { $("title").textContent = `No page for ${GAME}`; return; }
  about = data.game;
  agents = data.agents;
  document.title = capitalized(about.title);
  $("title").textContent = capitalized(about.title);
  fillTable();
  await resumeGame();
}

init();
