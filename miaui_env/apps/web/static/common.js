// What the browser app's pages share (index.html's app.js and octopus.html's octopus.js, each loaded
// after this file): building elements, the error banner, talking to the server, the replay shelf and the
// watch stepper. Every text is set as text, never as HTML: a replay's player names are anyone's to write.
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

// -- the error banner ---------------------------------------------------------------------------
function showError(message) { $("error-text").textContent = message; $("error").hidden = false; }
function clearError() { $("error").hidden = true; }

// Built here, not written into each page, so both pages show their failures in the same banner.
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

// A new game dealt by POSTing `body` (plus #seed, if typed) to `path`, #start disabled meanwhile;
// the person's `previous` game, if unfinished, is left (DELETE) and the setup form closed. The new
// game's view, or undefined once the error banner says why there is none.
async function startGame(path, body, previous) {
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

// -- the new-game form ------------------------------------------------------------------------------
// Both pages' forms: #players the table size, #seat the person's seat, #opponents one menu per other
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

// -- the replay shelf (each page lists its own game's replays) ----------------------------------
// One line of the shelf: when, who played, who won; the file's path shows on hover.
function shelfLine(item) {
  if (!item.players.length) return `${item.modified} · ${item.name.split("/").pop()} (not a replay this page reads)`;
  const won = item.winners.map((seat) => item.players[seat]).join(" and ");
  return `${item.modified} · ${item.players.join(", ")}${won ? ` · won by ${won}` : ""}`;
}

async function loadShelf(route) {
  const data = await attempt(() => api("GET", route));
  if (!data) return;
  const chosen = $("shelf").value;
  $("shelf").replaceChildren(...(data.replays.length ? data.replays.map((item) => option(item.name, shelfLine(item), item.name === chosen, item.name))
    : [option("", `(none under ${data.roots.join("/, ")}/)`, true)]));
}

// -- the watch stepper ------------------------------------------------------------------------------
// Built here, not written into each page, so both pages step through a replay with the same controls.
// A page's .stepper says what one step is (data-step) and holds the page's own buttons, which follow these.
function buildStepper(stepper) {
  const unit = stepper.dataset.step;
  stepper.prepend(
    h("span", { id: "watch-title", class: "watch-title" }),
    h("label", {}, "View as ", h("select", { id: "watch-seat" })),
    h("button", { type: "button", id: "first", title: "the deal", text: "« deal" }),
    h("button", { type: "button", id: "back", title: `back a ${unit} (left arrow key)`, text: "‹ back" }),
    h("span", { id: "step", class: "step" }),
    h("button", { type: "button", id: "forward", title: `forward a ${unit} (right arrow key)`, text: "forward ›" }),
    h("button", { type: "button", id: "last", title: "the end", text: "end »" }),
    h("button", { type: "button", id: "autoplay", text: "play" }));
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
