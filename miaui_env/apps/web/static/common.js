// What the browser app's pages share (index.html's app.js, octopus.html's octopus.js and game.html's game.js,
// each loaded after this file): building elements, the error banner, talking to the server, the new-game form,
// the person's decisions, the panel under a finished game, the replay shelf and the watch stepper. Every text
// is set as text, never as HTML: a replay's player names are anyone's to write.
"use strict";

const $ = (id) => document.getElementById(id);

// -- building elements ------------------------------------------------------------------------
function h(tag, attrs, ...children) {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") element.className = value;
    else if (key === "text") element.textContent = String(value);
    else if (key.startsWith("on")) element.addEventListener(key.slice(2), value);
    else element.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : String(child));
  }
  return element;
}

function option(value, text, selected, title) {
  return h("option", { value, selected: selected || null, title: title || null, text });
}

// A list (a log) given its `items`, scrolled to its newest line.
function showLog(id, items) {
  $(id).replaceChildren(...items);
  $(id).lastElementChild?.scrollIntoView({ block: "nearest" });
}

// Whether a key press is the page's to answer: no Ctrl, Alt or Meta held, and no menu or text field focused.
function pageKey(event) {
  return !(event.ctrlKey || event.metaKey || event.altKey) && !["SELECT", "INPUT", "TEXTAREA"].includes(document.activeElement.tagName);
}

// -- the error banner ---------------------------------------------------------------------------
function showError(message) { $("error-text").textContent = message; $("error").hidden = false; }
function clearError() { $("error").hidden = true; }

// Built here, not written into each page, so every page shows its failures in the same banner.
document.querySelector("main").before(h("div", { id: "error", class: "error", role: "alert", hidden: true },
  h("span", { id: "error-text" }),
  h("button", { type: "button", id: "error-close", class: "link", "aria-label": "dismiss", onclick: clearError }, "×")));

// -- talking to the server ----------------------------------------------------------------------
async function api(method, path, body) {
  const init = { method, headers: {} };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  if (response.status === 204) return null;
  let data = null;
  try { data = await response.json(); } catch { /* a plain answer from the server in front of the app */ }
  if (!response.ok) {
    const fallback = response.status === 413 ? "the request is too large for the server" : `the server answered ${response.status}`;
    throw new Error(data && data.error ? data.error : fallback);
  }
  return data;
}

async function attempt(work) {
  try {
    const result = await work();
    clearError();
    return result;
  } catch (error) {
    showError(error.message);
    return undefined;
  }
}

// -- what the page tells the shared code --------------------------------------------------------
// Each page's script calls `describePage` once, as it starts:
//   api          where its game's routes are: <api>/games, <api>/watch, <api>/replays, ...
//   show(view)   draws the person's game as the server sent it (the page's showGame)
//   autoplayMs   the time between two frames while the watch stepper plays on by itself
//   draw(w, animate)  draws frame w.frame of w.data (`watching` below), `animate` when stepped forward to it
//   final(w)     what #watch-final shows at a replay's last frame: a list of elements
//   spectator    the text of the watch seat menu's spectator option; absent where the page has none
//   stepText(frame, last)  what #step says; absent: "<the stepper's unit> <frame> of <last>"
//   refuseFile(file)  why a replay file chosen is refused before it is sent ("": it is not); absent: never
//   showWatch()  brings the watch board into view (a tab) before the person's finished game opens there
let thisPage = null;

function describePage(page) { thisPage = page; }

// -- the person's game --------------------------------------------------------------------------
let game = null; // the person's game as the server last sent it: each page's showGame keeps it here
let busy = false; // while one of the person's decisions is on its way: the page sends no second one

// A new game dealt by POSTing `body` (plus #seed, if typed) to `path`, #start disabled meanwhile;
// the person's previous game, if unfinished, is left (DELETE) and the setup form closed. The new
// game's view, or undefined once the error banner says why there is none.
async function startGame(path, body) {
  const previous = game;
  // Sent as the text typed: a JavaScript number would round a seed above 2^53 to another deal.
  const seed = $("seed").value.trim();
  const request = seed === "" ? body : { ...body, seed };
  $("start").disabled = true;
  const view = await attempt(() => api("POST", path, request));
  $("start").disabled = false;
  if (!view) return undefined;
  if (previous && !previous.over) api("DELETE", `${path}/${previous.id}`).catch(() => {});
  $("setup-box").open = false;
  return view;
}

// The table the new-game form asks for, as a new game's request: its size (under `sizeField`, the name
// the page's server reads), the person's seat and view, and the opponents clockwise from their left.
function tableChoice(sizeField) {
  const n = Number($("players").value);
  return { [sizeField]: n, seat: Number($("seat").value), view: $("view").value,
    opponents: [...Array(n - 1).keys()].map((k) => $(`opponent-${k + 1}`).value) };
}

// The person's game the address names (#game=<id>), as GET `${path}/<id>` sends it, the setup form
// closed; undefined where the address names none, or none that is still there (the address then cleared).
async function resumedGame(path) {
  const match = /^#game=([A-Za-z0-9_-]+)$/.exec(location.hash);
  if (!match) return undefined;
  const view = await attempt(() => api("GET", `${path}/${match[1]}`));
  if (view) $("setup-box").open = false;
  else history.replaceState(null, "", location.pathname);
  return view;
}

// The person's decision `body`, POSTed to `path` with the buttons `selector` finds disabled meanwhile:
// the game's new view, or undefined once the error banner says why (the buttons then enabled again).
async function send(path, body, selector) {
  busy = true;
  document.querySelectorAll(selector).forEach((button) => { button.disabled = true; });
  const view = await attempt(() => api("POST", path, body));
  busy = false;
  if (!view) document.querySelectorAll(selector).forEach((button) => { button.disabled = false; });
  return view;
}

// The person's decision `action`, on the pages whose games take one of #actions' choices (the generic
// page and the octopus page). It names the step the page shows: a second send (or a stale page) is
// refused, not played.
async function act(action) {
  if (busy || !game || game.over) return;
  const view = await send(`${thisPage.api}/games/${game.id}/actions`, { action, step: game.step }, "#actions button");
  if (view) thisPage.show(view);
}

// After #actions is drawn: its first choice focused, or Deal again where there is none.
function focusChoice() {
  const first = $("actions").querySelector("button");
  if (first) first.focus(); else $("deal-again")?.focus();
}

// Under a finished game: where its replay was saved (or why it was not), then what next: watch it back
// (`watch`, on the pages that can), download its replay (`replay`: the link's href, the file's name and
// the button's id, if any) and deal again (`deal`).
function gameOverParts(view, watch, replay, deal) {
  return [
    h("div", { class: "saved", text: view.replay ? `saved as a replay: ${view.replay}` : (view.replay_error || "") }),
    h("div", { class: "actions" },
      watch ? h("button", { type: "button", id: "watch-this", onclick: () => watch() }, "Watch this game") : null,
      h("a", { href: replay.href, download: replay.file },
        h("button", { type: "button", id: replay.buttonId || null, tabindex: "-1" }, "Download replay")),
      h("button", { type: "button", id: "deal-again", class: "primary", onclick: () => deal() }, "Deal again")),
  ];
}

// -- the new-game form ------------------------------------------------------------------------------
// Every page's form: #players the table size, #seat the person's seat, #opponents one menu per other
// seat, clockwise from the person's left. `opponentMenu(id, chosen)` builds a menu: `chosen` is what
// that menu held before (undefined for a new one).
function fillSeats(opponentMenu) {
  const n = Number($("players").value);
  const seat = Math.min(Number($("seat").value || 0), n - 1);
  $("seat").replaceChildren(...[...Array(n).keys()].map((s) => option(s, `player_${s}`, s === seat)));
  fillOpponents(opponentMenu);
}

function fillOpponents(opponentMenu) {
  const n = Number($("players").value);
  const seat = Number($("seat").value);
  const before = [...$("opponents").querySelectorAll("select")].map((select) => select.value);
  const rows = [];
  for (let k = 1; k < n; k++) {
    rows.push(h("label", { class: "opponent" }, `player_${(seat + k) % n}`, opponentMenu(`opponent-${k}`, before[k - 1])));
  }
  $("opponents").replaceChildren(h("strong", { text: "Opponents" }), ...rows);
}

// The form wired: a new table size or seat fills the seat menus again; submitting deals (`deal()`).
function wireSetup(opponentMenu, deal) {
  $("players").onchange = () => fillSeats(opponentMenu);
  $("seat").onchange = () => fillOpponents(opponentMenu);
  $("setup").onsubmit = (event) => { event.preventDefault(); deal(); };
}

// A menu of the `agents` the server offers, `chosen` selected; each one's tooltip is `about(agent)`.
function agentMenu(id, agents, chosen, about) {
  return h("select", { id }, agents.map((agent) => option(agent.name, agent.name, agent.name === chosen, about ? about(agent) : agent.about)));
}

// -- the replay shelf (each page lists its own game's replays) ----------------------------------
// One line of the shelf: when, who played, who won; the file's path shows on hover.
function shelfLine(item) {
  if (!item.players.length) return `${item.modified} · ${item.name.split("/").pop()} (not a replay this page reads)`;
  const won = item.winners.map((seat) => item.players[seat]).join(" and ");
  return `${item.modified} · ${item.players.join(", ")}${won ? ` · won by ${won}` : ""}`;
}

// The page's replays (GET <api>/replays) listed on the shelf.
async function loadShelf() {
  const data = await attempt(() => api("GET", `${thisPage.api}/replays`));
  if (!data) return;
  const chosen = $("shelf").value;
  $("shelf").replaceChildren(...(data.replays.length ? data.replays.map((item) => option(item.name, shelfLine(item), item.name === chosen, item.name))
    : [option("", `(none under ${data.roots.join("/, ")}/)`, true)]));
}

// Built here, not written into each page, so every page opens a replay with the same controls: the
// shelf and its Open button, and a file of one's own. A page's .replay-opener row may start with its
// own heading, which these follow.
function buildReplayOpener(row) {
  row.append(
    h("label", {}, "Saved here ", h("select", { id: "shelf" }, option("", "(none found)"))),
    h("button", { type: "button", id: "open-saved", onclick: openSaved }, "Open"),
    h("label", { class: "file" }, "or a file ", h("input", { type: "file", id: "replay-file", accept: ".json,application/json", onchange: openFile })));
}

async function openSaved() {
  const name = $("shelf").value;
  if (!name) { showError("no saved replay is chosen: pick one from the list, or open a file"); return; }
  const data = await attempt(() => api("POST", `${thisPage.api}/watch`, { file: name, seat: null }));
  if (data) startWatching(data, name);
}

async function openFile(event) {
  const file = event.target.files[0];
  if (!file) return;
  const refused = thisPage.refuseFile ? thisPage.refuseFile(file) : "";
  if (refused) { showError(refused); return; }
  await watchText(await file.text(), file.name);
  event.target.value = "";
}

buildReplayOpener(document.querySelector(".replay-opener"));

// -- the watch stepper ------------------------------------------------------------------------------
// Built here, not written into each page, so every page steps through a replay with the same controls.
// A page's .stepper says what one step is (data-step) and holds the page's own buttons, which follow these.
function buildStepper(stepper) {
  const unit = stepper.dataset.step;
  stepper.prepend(
    h("span", { id: "watch-title", class: "watch-title" }),
    h("label", {}, "View as ", h("select", { id: "watch-seat", onchange: changeWatchedSeat })),
    h("button", { type: "button", id: "first", title: "the deal", text: "« deal", onclick: () => step(0) }),
    h("button", { type: "button", id: "back", title: `back a ${unit} (left arrow key)`, text: "‹ back", onclick: () => step(watching.frame - 1) }),
    h("span", { id: "step", class: "step" }),
    h("button", { type: "button", id: "forward", title: `forward a ${unit} (right arrow key)`, text: "forward ›", onclick: () => step(watching.frame + 1) }),
    h("button", { type: "button", id: "last", title: "the end", text: "end »", onclick: () => step(watching.data.frames.length - 1) }),
    h("button", { type: "button", id: "autoplay", text: "play",
      onclick: () => toggleAutoplay(() => watching.frame, () => watching.data.frames.length, step, thisPage.autoplayMs) }));
}

buildStepper(document.querySelector(".stepper"));

// The stepper's autoplay: `at()` the frame shown, `count()` the frames, `step(k)` shows frame k.
let autoplay = null;

function stopAutoplay() {
  if (autoplay !== null) clearInterval(autoplay);
  autoplay = null;
  $("autoplay").textContent = "play";
}

function toggleAutoplay(at, count, step, milliseconds) {
  if (autoplay !== null) { stopAutoplay(); return; }
  if (at() === count() - 1) step(0);
  $("autoplay").textContent = "pause";
  autoplay = setInterval(() => {
    step(at() + 1);
    if (at() === count() - 1) stopAutoplay();
  }, milliseconds);
}

// -- watching a replay ------------------------------------------------------------------------------
// The replay watched: its file's text, the frames as the server last sent them for the seat watched from
// (data: {players, frames, ...whatever else the page draws}), the frame shown, the title, and that seat
// (null: the spectator's).
let watching = null; // {replay, data, frame, title, seat}

function showFrame(animate) {
  const { data, frame } = watching;
  const last = data.frames.length - 1;
  $("watch-title").textContent = watching.title;
  $("step").textContent = thisPage.stepText ? thisPage.stepText(frame, last)
    : `${document.querySelector(".stepper").dataset.step} ${frame} of ${last}`;
  thisPage.draw(watching, animate);
  $("watch-final").hidden = frame !== last;
  if (frame === last) $("watch-final").replaceChildren(...thisPage.final(watching));
  $("first").disabled = $("back").disabled = frame === 0;
  $("forward").disabled = $("last").disabled = frame === last;
}

// A replay opened: `data` as POST <api>/watch answers (its seat, where the page's server says which it chose).
function startWatching(data, title) {
  stopAutoplay();
  const seat = data.seat ?? null;
  watching = { replay: data.replay, data, frame: 0, title, seat };
  const spectator = thisPage.spectator ? [option("", thisPage.spectator, seat === null)] : [];
  $("watch-seat").replaceChildren(...spectator, ...data.players.map((name, s) => option(s, `player_${s} (${name})`, s === seat)));
  $("watch-board").hidden = false;
  $("watch-box").open = false;
  showFrame(false);
}

function step(to) {
  if (!watching) return;
  const frame = Math.max(0, Math.min(watching.data.frames.length - 1, to));
  if (frame === watching.frame) return;
  const animate = frame === watching.frame + 1;
  watching.frame = frame;
  showFrame(animate);
}

// A replay's text watched from `seat` (undefined or null: as the spectator, or as the page's server chooses).
async function watchText(text, title, seat) {
  const data = await attempt(() => api("POST", `${thisPage.api}/watch`, { replay: text, seat: seat ?? null }));
  if (data) startWatching(data, title);
  return data;
}

// The same replay from the seat the menu names, at the same step.
async function changeWatchedSeat() {
  const seat = $("watch-seat").value === "" ? null : Number($("watch-seat").value);
  const data = await attempt(() => api("POST", `${thisPage.api}/watch`, { replay: watching.replay, seat }));
  if (!data || !watching) return;
  watching.data = data;
  watching.seat = seat;
  watching.frame = Math.min(watching.frame, data.frames.length - 1);
  showFrame(false);
}

// The person's finished game `id` watched back from `seat` (null: as the spectator), titled "your game".
async function watchFinishedGame(id, seat) {
  const text = await attempt(async () => {
    const response = await fetch(`${thisPage.api}/games/${id}/replay`);
    if (!response.ok) throw new Error((await response.json()).error);
    return response.text();
  });
  if (text === undefined) return;
  if (thisPage.showWatch) thisPage.showWatch();
  await watchText(text, "your game", seat);
}

function closeWatching() {
  stopAutoplay();
  watching = null;
  $("watch-board").hidden = true;
}

// ← and → step through the replay while its board is in view.
document.addEventListener("keydown", (event) => {
  if (!watching || $("watch-board").closest("[hidden]") || !pageKey(event) || !["ArrowLeft", "ArrowRight"].includes(event.key)) return;
  event.preventDefault();
  step(watching.frame + (event.key === "ArrowRight" ? 1 : -1));
});
