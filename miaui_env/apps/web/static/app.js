// Miaui in the browser: the page draws what the server sends (miaui_env/games/miaui/web.py and display/page.py
// build the JSON) and sends back clicks. Every text is set as text, never as HTML: a replay's player names
// are anyone's to write.
"use strict";

const API = "/api"; // Miaui's routes, under the addresses they had before every game had its own
const ROUNDS = 12;
const DEPTH_RULES = { bottom: "the highest card", middle: "the next highest card", top: "the lowest card" };
const KIND_NAMES = { kittenfish: "Kittenfish", tigerfish: "Tigerfish", emperor_tuna: "Emperor tuna", lantern: "Lantern", jellyfish: "Jellyfish", seagull: "Seagull" };
const KIND_SHORT = { kittenfish: "kitten", tigerfish: "tiger", emperor_tuna: "tuna", lantern: "lantern", jellyfish: "jelly", seagull: "gull" };
const STEP_SECONDS = 0.55; // between the steps of a reveal
const AUTOPLAY_MS = 2200;
// The keyboard plays cards 1-12 with the top row's 1-9, 0, - and = (as a phone's dial pad lists them).
const CARD_KEYS = { 1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 6: 6, 7: 7, 8: 8, 9: 9, 0: 10, "-": 11, "=": 12 };

let agents = [];
let limits = null;

// -- names ------------------------------------------------------------------------------------
// ctx: {players: [name by seat], you: the person's seat or null}
function label(ctx, seat) { return seat === ctx.you ? "you" : `player_${seat}`; }
function title(ctx, seat) { return seat === ctx.you ? "You" : `player_${seat}`; }
function whose(ctx, seat) { return seat === ctx.you ? "your" : `player_${seat}'s`; }
function who(ctx, seat) { return seat === ctx.you ? "" : ctx.players[seat]; }
function list(ctx, seats) { return seats.map((seat) => label(ctx, seat)).join(", "); }
function verb(ctx, seat, plural, singular) { return seat === ctx.you ? plural : singular; }

// -- drawing a table --------------------------------------------------------------------------------
function cardElement(card, ctx, small) {
  const classes = ["card"];
  if (small) classes.push("small");
  if (card.kind === null) {
    classes.push("down");
    const hint = card.peeker === null ? "face-down" : `face-down; ${label(ctx, card.peeker)} peeked`;
    return h("span", { class: classes.join(" "), title: hint }, h("span", { class: "value", text: "?" }));
  }
  classes.push(card.kind);
  if (card.face_down) classes.push("peeked");
  const hint = `${KIND_NAMES[card.kind]} ${card.value}${card.face_down ? " (face-down)" : ""}`;
  return h("span", { class: classes.join(" "), title: hint },
    h("span", { class: "value", text: card.value }), h("span", { class: "kind", text: KIND_SHORT[card.kind] }));
}

function peekNote(card, ctx) {
  if (!card.face_down) return null;
  if (card.peeker === null) return h("span", { class: "peek", text: "face-down" });
  if (card.peeker === ctx.you) return h("span", { class: "peek", text: "face-down: only you have seen it" });
  return h("span", { class: "peek", text: `face-down: ${label(ctx, card.peeker)} peeked` });
}

function statusLine(table, ctx) {
  const variants = [table.open_baskets && "Open Baskets", table.no_fighting && "No Fighting"].filter(Boolean);
  let viewer = "spectator: every card turned up";
  if (table.viewer !== null) viewer = table.viewer === ctx.you ? "your view" : `player_${table.viewer}'s view: what its observation holds`;
  return h("div", { class: "status" },
    h("span", { class: "round", text: table.round <= ROUNDS ? `Round ${table.round} of ${ROUNDS}` : "Game over" }),
    h("span", { class: "variant", text: `${table.num_players} players${variants.length ? " · " + variants.join(", ") : ""}` }),
    h("span", { class: "viewer", text: viewer }));
}

// The seats around a round table, clockwise (R1), the viewer (or player_0) at the bottom; Kiti drawn
// in the gap between its two neighbours, each seat marked with its place in the two tie orders.
function roundTableElement(table, ctx) {
  const order = table.seats.map((row) => row.seat);
  const n = order.length;
  // Placed through the style object: the page's Content-Security-Policy refuses inline style attributes.
  const at = (element, place, radius) => {
    const angle = (90 + (place * 360) / n) * (Math.PI / 180); // screen y points down: growing angles run clockwise
    element.style.left = `${50 + radius * Math.cos(angle)}%`;
    element.style.top = `${50 + radius * Math.sin(angle)}%`;
    return element;
  };
  const playing = table.kiti && table.round <= ROUNDS;
  const seats = order.map((seat, place) => {
    const deep = playing ? table.deep_order.indexOf(seat) + 1 : null;
    const shallow = playing ? table.shallow_order.indexOf(seat) + 1 : null;
    const ranks = playing ? h("span", { class: "ranks", title: "place in the tie order at the bottom and middle ▼, and at the top ▲", text: `▼${deep} ▲${shallow}` }) : null;
    return at(h("div", { class: seat === ctx.you ? "rt-seat you" : "rt-seat", "data-seat": seat },
      h("span", { class: "rt-name", text: label(ctx, seat) }), ranks), place, 38);
  });
  let kiti = null;
  if (playing) {
    const gap = order.indexOf(table.kiti[0]) + 0.5; // the gap after Kiti's first neighbour, clockwise
    kiti = at(h("div", { class: "rt-kiti", title: `Kiti sits between ${label(ctx, table.kiti[0])} and ${label(ctx, table.kiti[1])}`, text: "Kiti" }), gap, 24);
  }
  return h("div", { class: "round-table", role: "img", "aria-label": "the seats around the table, clockwise" },
    h("div", { class: "rt-cloth", text: "clockwise ↻" }), seats, kiti);
}

function tiesLine(table, ctx) {
  if (table.round > ROUNDS) return null;
  if (table.no_fighting) return h("div", { class: "ties", text: "No Fighting: tied players catch nothing, and the fish stay for the next round." });
  if (!table.kiti) return null;
  return h("div", { class: "ties" },
    "Kiti sits between ", h("b", { text: label(ctx, table.kiti[0]) }), " and ", h("b", { text: label(ctx, table.kiti[1]) }),
    ". Ties at the bottom and middle go to ", h("b", { text: table.deep_order.map((s) => label(ctx, s)).join(" › ") }),
    "; at the top to ", h("b", { text: table.shallow_order.map((s) => label(ctx, s)).join(" › ") }), ".",
    h("span", { class: "rt-legend", text: " On the round table, ▼ is a seat's place in the first order and ▲ in the second." }));
}

function lagoonElement(table, ctx) {
  const names = ["bottom", "middle", "top"];
  return h("div", { class: "lagoon" }, table.lagoon.map((space, depth) => {
    const cards = space.cards.map((card) => [cardElement(card, ctx, false), peekNote(card, ctx)]);
    if (space.more) cards.push(h("span", { class: "note", text: `+${space.more} more` }));
    return h("div", { class: "space" },
      h("div", { class: "name", text: `Lagoon ${names[depth]}` }),
      h("div", { class: "rule", text: `caught by ${DEPTH_RULES[names[depth]]}` }),
      h("div", { class: "cards" }, cards.length ? cards : h("span", { class: "empty", text: "empty" })));
  }));
}

// final: {scores, winners} once the game is over (every pile is counted in the open, R10), else null
function seatElement(row, table, ctx, final) {
  const winners = final ? final.winners : null;
  const known = row.score !== null ? row.score : final ? final.scores[row.seat] : null;
  const classes = ["seat"];
  if (row.seat === ctx.you) classes.push("you");
  if (winners && winners.includes(row.seat)) classes.push("winner");
  const kiti = table.kiti && table.kiti.includes(row.seat) && table.round <= ROUNDS
    ? h("span", { class: "kiti", title: "Kiti sits between this seat and its neighbour on the round table", text: "next to Kiti" }) : null;
  const score = known === null
    ? h("span", { class: "seat-score unknown", title: "the table view shows an opponent's pile height and top fish only", text: "score hidden (top fish only)" })
    : h("span", { class: "seat-score", text: known });
  const below = row.height - row.pile.length;
  const pile = row.pile.map((card) => cardElement(card, ctx, true));
  const height = row.height === 0 ? "no fish yet" : `${row.height} fish${below > 0 ? ` (${below} below)` : ""}`;
  const divers = row.hand.map((held, index) => {
    const state = held === 1 ? "held" : held === 0 ? "played" : "unknown";
    const last = row.played === index + 1 ? " last" : "";
    const hint = held === null ? "not known to this view" : held ? "still in hand" : "played";
    return h("span", { class: `diver ${state}${last}`, title: `${index + 1}: ${hint}`, text: index + 1 });
  });
  return h("div", { class: classes.join(" "), "data-seat": row.seat }, kiti,
    h("div", { class: "seat-head" }, h("span", { class: "seat-name", text: title(ctx, row.seat) }),
      h("span", { class: "seat-who", text: who(ctx, row.seat) }), score),
    h("div", { class: "pile" }, pile, h("span", { class: "height", text: height })),
    tallyElement(row.tally),
    h("div", { class: "divers" }, divers));
}

// The whole pile by kind, where the view holds it: your own always, the others' under Open Baskets (R11).
// Jellyfish are always counted: a third one sends all three to the box (R9).
function tallyElement(tally) {
  if (!tally) return null;
  const jellyfish = (tally.kinds.find(([kind]) => kind === "jellyfish") || [null, 0])[1];
  const fish = tally.kinds.filter(([kind]) => kind !== "jellyfish").map(([kind, count]) => `${count} ${KIND_SHORT[kind]}`);
  return h("div", { class: "tally", title: "the whole pile, counted by kind" },
    h("span", { text: `whole pile: ${fish.length ? fish.join(", ") : "no fish"}` }),
    h("span", { class: jellyfish === 2 ? "jelly warn" : "jelly", text: `${jellyfish} of 3 Jellyfish` }));
}

function tableElement(table, ctx, final) {
  return h("div", { class: "table" }, statusLine(table, ctx),
    h("div", { class: "table-top" }, roundTableElement(table, ctx), h("div", { class: "table-top-side" }, tiesLine(table, ctx), lagoonElement(table, ctx))),
    h("div", { class: `seats n${table.num_players}` }, table.seats.map((row) => seatElement(row, table, ctx, final))));
}

// -- drawing a reveal ---------------------------------------------------------------------------
function stepElement(step, ctx) {
  const cards = (list) => h("span", { class: "cards" }, list.map((card) => cardElement(card, ctx, true)));
  let what;
  if (step.kind === "catch") {
    const tie = step.kiti ? ` (tied with ${list(ctx, step.contenders.filter((s) => s !== step.seat))}; Kiti gives it to ${label(ctx, step.seat)})` : "";
    what = [`${title(ctx, step.seat)} ${verb(ctx, step.seat, "catch", "catches")} with ${step.card}${tie}`];
    return h("li", { class: "catch" }, h("span", { class: "depth", text: step.depth }), h("span", { class: "what" }, what), cards(step.fish));
  }
  if (step.kind === "tie") {
    what = `${list(ctx, step.contenders)} tied on ${step.card}: nobody catches, and they are out of this round`;
  } else if (step.kind === "nobody_left") {
    what = "nobody is left to catch here";
  } else if (step.kind === "theft") {
    if (step.stolen === null) {
      what = `the Seagull finds ${whose(ctx, step.seat)} pile empty and flies off`;
    } else {
      return h("li", { class: "theft" }, h("span", { class: "depth", text: "seagull" }),
        h("span", { class: "what", text: `the Seagull steals the top of ${whose(ctx, step.seat)} pile; both go to the box` }), cards([step.stolen]));
    }
    return h("li", { class: "theft" }, h("span", { class: "depth", text: "seagull" }), h("span", { class: "what", text: what }));
  } else if (step.kind === "triple") {
    return h("li", { class: "triple" }, h("span", { class: "depth", text: "jelly" }),
      h("span", { class: "what", text: `three Jellyfish in ${whose(ctx, step.seat)} pile go to the box` }), cards(step.cards));
  }
  return h("li", { class: step.kind }, h("span", { class: "depth", text: step.depth }), h("span", { class: "what", text: what }));
}

function revealElement(reveal, ctx, animate) {
  const plays = reveal.plays.map((card, seat) => [
    h("span", { text: seat === ctx.you ? "you" : `player_${seat} (${ctx.players[seat]})` }),
    h("span", {}, h("span", { class: "chip", text: card }))]);
  const steps = reveal.steps.map((step, index) => {
    const item = stepElement(step, ctx);
    item.style.animationDelay = animate ? `${(index + 1) * STEP_SECONDS}s` : "0s";
    return item;
  });
  const forced = reveal.round === ROUNDS ? " (the last cards, forced)" : "";
  return h("div", { class: "reveal" }, h("h3", { text: `Round ${reveal.round} revealed${forced}` }),
    h("div", { class: "plays" }, plays), h("ol", { class: "steps" }, steps));
}

// Earlier rounds, newest first, each folded to one line until opened.
function logElement(reveals, ctx) {
  const rounds = [...reveals].reverse().map((reveal) => {
    const plays = reveal.plays.map((card, seat) => `${label(ctx, seat)} ${card}`).join(", ");
    return h("details", { class: "log-round" }, h("summary", { text: `Round ${reveal.round}: ${plays}` }), revealElement(reveal, ctx, false));
  });
  return h("div", { class: "log" }, h("h3", { text: "Earlier rounds" }), rounds.length ? rounds : h("span", { class: "hint", text: "none yet" }));
}

function finalElement(final, ctx, actions) {
  const order = final.scores.map((score, seat) => seat).sort((a, b) => final.scores[b] - final.scores[a]);
  const won = final.winners.includes(ctx.you);
  let heading = `${list(ctx, final.winners)} ${final.winners.length > 1 ? "share the win" : "wins"}`;
  if (ctx.you !== null) heading = won ? (final.winners.length > 1 ? "You share the win!" : "You win!") : `${heading}. Better luck next time.`;
  const rows = order.map((seat) => h("tr", { class: final.winners.includes(seat) ? "won" : null, "data-seat": seat },
    h("td", { text: seat === ctx.you ? "you" : `player_${seat}` }), h("td", { text: who(ctx, seat) }),
    h("td", { class: "score", text: final.scores[seat] }), h("td", { text: final.winners.includes(seat) ? "winner" : "" })));
  return [h("h2", { text: `Final scores: ${heading}` }), h("table", {}, rows), ...(actions || [])];
}

// -- playing ------------------------------------------------------------------------------------
function agentSelect(id, chosen) {
  return agentMenu(id, agents, chosen,
    (agent) => (agent.needs_training_extra ? `${agent.about} (needs the training extra: torch and sb3-contrib)` : agent.about));
}

// The shipped policies this server cannot load, and the one command that brings them.
function trainingNote(training) {
  if (!training || !training.missing.length) return [];
  const policies = [...new Set(training.missing.map((name) => name.replace(/^search\+/, "").replace(/@sample$/, "")))];
  return [`The trained policies (${policies.join(", ")}) need the training extra, torch and sb3-contrib: `,
    h("code", { text: training.install }), ", then restart the server."];
}

// The terminal's default opponents (python -m miaui_env.apps.play), cycled over the seats.
const DEFAULT_OPPONENTS = ["counter", "greedy", "random"];
function opponentMenu(id, chosen) {
  const k = Number(id.split("-").pop()) - 1; // opponent-1 sits on the person's left
  return agentSelect(id, chosen || DEFAULT_OPPONENTS[k % DEFAULT_OPPONENTS.length]);
}

function playContext(view) { return { players: view.players, you: view.seat }; }

function showGame(view) {
  game = view;
  const ctx = playContext(view);
  $("play-board").hidden = false;
  $("play-table").replaceChildren(tableElement(view.table, ctx, view.final));
  $("hand").replaceChildren(...[...Array(ROUNDS).keys()].map((index) => {
    const card = index + 1;
    const held = view.hand.includes(card);
    const key = Object.keys(CARD_KEYS).find((name) => CARD_KEYS[name] === card);
    return h("button", { type: "button", id: `card-${card}`, class: held ? "held" : "spent", disabled: view.over || busy,
      title: held ? `play ${card} (key ${key})` : "already played", "aria-keyshortcuts": key, onclick: () => playCard(card), text: card });
  }));
  $("hand-hint").textContent = view.over ? "the game is over" : `round ${view.table.round}: click a card, or press 1-9, 0, - or = for cards 1-12`;
  $("play-reveal").replaceChildren(...view.reveal.map((reveal) => revealElement(reveal, ctx, true)));
  const shown = view.reveal.length;
  $("play-log").replaceChildren(view.log
    ? logElement(view.log.slice(0, view.log.length - shown), ctx)
    : h("div", { class: "log hint", text: "The table view shows the last reveal only (R11): deal with “the table + a perfect memory” for a log of every round." }));
  $("final").hidden = !view.final;
  if (view.final) {
    const replay = { href: `${API}/games/${view.id}/replay`, file: `miaui-${view.id.slice(0, 6)}.json` };
    $("final").replaceChildren(...finalElement(view.final, ctx, gameOverParts(view, () => watchFinishedGame(view.id, null), replay, dealGame)));
  }
}

async function playCard(card) {
  if (busy || !game) return;
  // The play names the round the page shows: a second send (or a stale page) is refused, not played.
  const view = await send(`${API}/games/${game.id}/play`, { card, round: game.table.round }, "#hand button");
  if (view) showGame(view);
  focusHand(card);
}

// Redrawing the hand drops the focus to the page body: keep it on the hand, at the played card's place.
function focusHand(near) {
  const buttons = [...document.querySelectorAll("#hand button.held:not(:disabled)")];
  if (!buttons.length) { $("deal-again")?.focus(); return; }
  const next = buttons.find((button) => Number(button.textContent) >= near) || buttons[buttons.length - 1];
  next.focus();
}

async function dealGame() {
  const body = { ...tableChoice("players"), open_baskets: $("open_baskets").checked, no_fighting: $("no_fighting").checked };
  const view = await startGame(`${API}/games`, body);
  if (!view) return;
  history.replaceState(null, "", `#game=${view.id}`);
  showGame(view);
}

// -- watching -----------------------------------------------------------------------------------
function fillWatchAgents() {
  const n = Number($("watch-players").value);
  const before = [...$("watch-agents").querySelectorAll("select")].map((select) => select.value);
  const defaults = ["counter", "greedy", "search", "random", "counter", "greedy"];
  const rows = [...Array(n).keys()].map((s) => h("label", { class: "opponent" }, `player_${s}`, agentSelect(`watch-agent-${s}`, before[s] || defaults[s])));
  $("watch-agents").replaceChildren(...rows);
}

// A frame is the table after the deal or after a round's reveal: the reveal itself shown beside it
// (animated when stepped forward to), and the rounds before in the log.
function drawWatched(watched, animate) {
  const { data, frame } = watched;
  const ctx = { players: data.players, you: null };
  const current = data.frames[frame];
  const final = frame === data.frames.length - 1 ? JSON.parse(watched.replay) : null;
  $("watch-table").replaceChildren(tableElement(current.table, ctx, final));
  $("watch-reveal").replaceChildren(...current.reveal.map((reveal) => revealElement(reveal, ctx, animate)));
  // The spectator sees every round; a seat's view keeps what that seat's observation holds (R11).
  const earlier = data.frames.slice(1, frame).flatMap((shownFrame) => shownFrame.reveal);
  $("watch-log").replaceChildren(watched.seat === null ? logElement(earlier, ctx) : []);
}

function stepText(frame, last) {
  const what = frame === 0 ? "the deal" : frame === last ? `rounds ${frame} and ${ROUNDS} revealed` : `round ${frame} revealed`;
  return `step ${frame} of ${last}: ${what}`;
}

function download() {
  const link = h("a", { href: URL.createObjectURL(new Blob([watching.replay], { type: "application/json" })), download: "miaui-replay.json" });
  document.body.append(link);
  link.click();
  link.remove();
}

// -- wiring ---------------------------------------------------------------------------------------
function showTab(name) {
  $("play").hidden = name !== "play";
  $("watch").hidden = name !== "watch";
  $("tab-play").classList.toggle("active", name === "play");
  $("tab-watch").classList.toggle("active", name === "watch");
  if (name === "watch") loadShelf();
  else stopAutoplay();
}

function wire() {
  // Miaui's frames end at the last reveal: the scores and winners are read from the replay's text.
  describePage({ api: API, show: showGame, autoplayMs: AUTOPLAY_MS, spectator: "spectator (every card)", draw: drawWatched, stepText,
    final: (watched) => finalElement(JSON.parse(watched.replay), { players: watched.data.players, you: null }, null),
    refuseFile: (file) => (limits && file.size > limits.max_body_kb * 1024 ? `${file.name} is larger than ${limits.max_body_kb} kB: not a replay` : ""),
    showWatch: () => showTab("watch") });
  $("tab-play").onclick = () => showTab("play");
  $("tab-watch").onclick = () => showTab("watch");
  wireSetup(opponentMenu, dealGame);
  $("watch-players").onchange = fillWatchAgents;
  $("watch-fresh").onclick = async () => {
    const n = Number($("watch-players").value);
    const body = { players: n, agents: [...Array(n).keys()].map((s) => $(`watch-agent-${s}`).value),
      open_baskets: $("watch-open_baskets").checked, no_fighting: $("watch-no_fighting").checked, seat: null };
    $("watch-fresh").disabled = true;
    const data = await attempt(() => api("POST", `${API}/watch/agents`, body));
    $("watch-fresh").disabled = false;
    if (data) startWatching(data, "a fresh game of agents");
  };
  $("download").onclick = download;
  document.addEventListener("keydown", (event) => {
    if ($("play").hidden || !game || game.over || busy || !pageKey(event) || !(event.key in CARD_KEYS)) return;
    event.preventDefault();
    playCard(CARD_KEYS[event.key]);
  });
}

async function init() {
  wire();
  for (const select of [$("players"), $("watch-players")]) {
    select.replaceChildren(...[3, 4, 5, 6].map((n) => option(n, n, n === 4)));
  }
  const data = await attempt(() => api("GET", `${API}/agents`));
  if (!data) return;
  agents = data.agents;
  limits = data.limits;
  $("limits").textContent = `Finished games are saved as replays. Games are kept ${limits.idle_minutes} minutes untouched.`;
  $("training-note").replaceChildren(...trainingNote(data.training_extra));
  $("training-note").hidden = !data.training_extra.missing.length;
  fillSeats(opponentMenu);
  fillWatchAgents();
  const resumed = await resumedGame(`${API}/games`);
  if (resumed) showGame(resumed);
}

init();
