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
  showLog("log", view.log.map((entry) => h("li", {}, entry.text,
    entry.seen.length ? h("ul", { class: "seen", "aria-label": "what changed in your view" }, entry.seen.map((line) => h("li", { text: line }))) : null)));
  $("final").hidden = !view.final;
  if (view.final) {
    const replay = { href: `${API}/games/${view.id}/replay`, file: `${GAME}-${view.id.slice(0, 6)}.json`, buttonId: "download" };
    $("final").replaceChildren(...finalElement(view.final, view.players, view.seat),
      ...gameOverParts(view, () => watchFinishedGame(view.id, view.seat), replay, dealGame));
  }
  focusChoice();
}

function opponentMenu(id, chosen) {
  const k = Number(id.split("-").pop()) - 1; // opponent-1 sits on the person's left
  const defaults = about.default_opponents.length ? about.default_opponents : [agents[0].name];
  return agentMenu(id, agents, chosen || defaults[k % defaults.length]);
}

async function dealGame() {
  const view = await startGame(`${API}/games`, tableChoice("num_players"));
  if (view) showGame(view);
}

// -- watching a replay ---------------------------------------------------------------------------
// Every frame is the table after a decision: the spectator's (every decision in words) or one
// seat's view (its own decisions in words, the others' as who decided).
function drawWatched(watched) {
  const { data, frame } = watched;
  const heading = data.seat === null ? "The table (spectator)" : `player_${data.seat}'s view (${data.players[data.seat]})`;
  $("watch-view").replaceChildren(h("h2", { text: heading }), linesElement(data.frames[frame].lines));
  showLog("watch-log", data.frames.slice(1, frame + 1).map((shown) => h("li", { text: shown.move })));
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
  describePage({ api: API, show: showGame, autoplayMs: AUTOPLAY_MS, spectator: "spectator (every decision)", draw: drawWatched,
    final: (watched) => finalElement(watched.data.final, watched.data.players, watched.data.seat) });
  $("watch-box").addEventListener("toggle", () => { if ($("watch-box").open) loadShelf(); });
  $("close-watch").onclick = closeWatching;
  wireSetup(opponentMenu, dealGame);
  document.addEventListener("keydown", (event) => {
    if (!game || game.over || busy || !pageKey(event) || !/^[1-9]$/.test(event.key)) return;
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
  const resumed = await resumedGame(`${API}/games`);
  if (resumed) showGame(resumed);
}

init();
