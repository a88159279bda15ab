// The Memory tab's core: calling the service, building elements, confirming an
// action and refreshing what it changed. The graph (graph.js), a node's detail
// (detail.js), the tending panels (panels.js) and the conversations
// (sessions.js) build on it; boot.js starts them.
// Memory text is only ever set with textContent: memory content is data, never markup.
"use strict";

// Under a multi-workspace service the tab lives at /w/{workspace}/: its calls
// go there, and each workspace's token is kept apart from the others'.
const BASE = (location.pathname.match(/^\/w\/[a-z0-9_-]+/) || [""])[0];
const TOKEN_KEY = "memoryToken" + BASE;
// `placeAt`: where a node about to appear goes (a renamed page takes its old place).
const state = { token: sessionStorage.getItem(TOKEN_KEY) || "", cy: null, selected: null,
                placeAt: {} };
// The person's session (confirming parked profile lines is theirs alone): opened
// once through the link `memory serve` prints (?person=…), kept as an HttpOnly
// cookie the page cannot read and a CSRF token sent back with each call.
const CSRF_KEY = "memoryCsrf" + BASE;
state.csrf = sessionStorage.getItem(CSRF_KEY) || "";

async function openPersonSession() {
  const params = new URLSearchParams(location.search);
  const token = params.get("person");
  if (!token) return;
  params.delete("person");
  const rest = params.toString();
  history.replaceState(null, "", location.pathname + (rest ? "?" + rest : ""));
  const response = await fetch(BASE + "/v1/person/login", {
    method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ token }),
  });
  const data = await response.json();
  if (response.ok && data.csrf) {
    state.csrf = data.csrf;
    sessionStorage.setItem(CSRF_KEY, data.csrf);
  }
}

async function api(path, body) {
  // The surface a change came through: a forget's tombstone records "web".
  const headers = { "Content-Type": "application/json", "X-Memory-Surface": "web" };
  if (state.token) headers["Authorization"] = "Bearer " + state.token;
  if (state.csrf) headers["X-CSRF-Token"] = state.csrf;
  const response = await fetch(BASE + path, body === undefined
    ? { headers }
    : { method: "POST", headers, body: JSON.stringify(body) });
  const data = await response.json();
  // A workspace answers 404 to a missing or wrong token, as to one that does not exist.
  if (response.status === 401 || (BASE && response.status === 404 && data.error
      && data.error.message.startsWith("no such workspace"))) {
    document.getElementById("token-bar").hidden = false;
  }
  if (!response.ok) {
    throw new Error(data.error ? data.error.message : "HTTP " + response.status);
  }
  return data;
}

// A list's answer from `path`, or null with the error shown in the list.
async function listed(list, path) {
  try {
    return await api(path);
  } catch (err) {
    list.replaceChildren(el("li", err.message, "meta"));
    return null;
  }
}

function el(tag, text, cls) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  if (cls) node.className = cls;
  return node;
}

// A name (a title, a slug, a session's first line) that may be written right to
// left: isolated, so the text around it (a date, a weight) keeps its own order.
function nameEl(tag, text, cls) {
  const node = el(tag, text, cls ? cls + " name" : "name");
  node.dir = "auto";
  return node;
}

function nodeLink(id, label) {
  const a = nameEl("a", label || id, "node-link");
  a.dataset.node = id;
  a.addEventListener("click", () => selectNode(id));
  return a;
}

function button(label, action, onClick) {
  const b = el("button", label, "small");
  b.type = "button";
  b.dataset.action = action;
  b.addEventListener("click", onClick);
  return b;
}

function isoMinute(iso) {
  return String(iso || "").replace("T", " ").slice(0, 16);
}

// Confirm, then call the route, the status line saying how it went; the answer,
// or null when it was not confirmed or failed.
async function confirmedCall(question, path, body, done) {
  if (question && !window.confirm(question)) return null;
  const status = document.getElementById("action-status");
  status.textContent = "Working…";
  try {
    const answer = await api(path, body);
    status.textContent = done;
    return answer;
  } catch (err) {
    status.textContent = err.message;
    return null;
  }
}

// Counted once an action's results are on screen (the browser tests wait on it).
function noteActed() {
  document.body.dataset.acted = String(Number(document.body.dataset.acted || 0) + 1);
}

// Everything an action may have changed, drawn again in place: the graph keeps
// its layout (only added nodes are placed, removed ones leave), the panels and
// the open node's detail are read again.
async function refreshAll() {
  await Promise.all([loadGraph(), loadHeld(), loadTrash(), loadProblems(), loadProfile(),
    loadLearning()]);
  if (state.selected) await selectNode(state.selected, true);
}

// Confirm, call the route, then show what changed (or why it did not).
async function act(question, path, body, done) {
  const answer = await confirmedCall(question, path, body, done || "Done.");
  if (answer === null) return null;
  await refreshAll();
  noteActed();
  return answer;
}

async function search(query) {
  const results = document.getElementById("results");
  const list = document.getElementById("result-list");
  results.hidden = false;
  list.replaceChildren(el("li", "Searching…", "hint"));
  let data;
  try {
    data = await api("/v1/memory/search", { query, k: 10 });
  } catch (err) {
    list.replaceChildren(el("li", err.message, "missing"));
    return;
  }
  if (state.cy) state.cy.nodes().removeClass("hit");
  list.replaceChildren();
  if (data.hits.length === 0) list.append(el("li", "No matches.", "hint"));
  const best = Math.max(...data.hits.map((h) => h.score), 1e-9);
  for (const hit of data.hits) {
    const item = el("li");
    item.append(hit.kind === "episode" ? episodeLink(hit) : nodeLink(hit.slug, hit.title));
    item.append(el("span", " " + hit.score.toFixed(3), "score"));
    item.append(el("div", (hit.excerpt || "").slice(0, 160), "meta"));
    list.append(item);
    if (state.cy) {
      const n = state.cy.getElementById(hit.slug);
      n.data("score", hit.score / best);
      n.addClass("hit");
    }
  }
}

// Which tier answers turns, and which keys decided it: never a silent tier.
async function loadTier() {
  let stats;
  try {
    stats = await api("/v1/memory/stats");
  } catch (err) {
    return;
  }
  const badge = document.getElementById("tier");
  badge.textContent = "Tier " + stats.tier;
  badge.title = stats.tier_reason + (stats.advice ? "; " + stats.advice : "");
  badge.dataset.tier = stats.tier;
  document.getElementById("tier-reason").textContent =
    stats.tier_reason + (stats.advice ? " — " + stats.advice : "");
}
