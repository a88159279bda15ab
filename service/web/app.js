// The Memory tab: the memory graph, search, a node's detail ("why selected") and
// the actions that tend memory (forget or correct a fact, pin or delete a page),
// each confirmed and sent to the same HTTP routes every surface uses.
// Page text is only ever set with textContent: memory content is data, never markup.
"use strict";

// Under a multi-workspace service the tab lives at /w/{workspace}/: its calls
// go there, and each workspace's token is kept apart from the others'.
const BASE = (location.pathname.match(/^\/w\/[a-z0-9_-]+/) || [""])[0];
const TOKEN_KEY = "memoryToken" + BASE;
const state = { token: sessionStorage.getItem(TOKEN_KEY) || "", cy: null };
const LABEL_CHARS = 18; // a node's label; the full title shows on hover
const LABELLED_UP_TO = 60;
const MAX_FIT_ZOOM = 1.3; // larger graphs label only core, hit, hovered and selected nodes

function shortLabel(text) {
  const clean = String(text || "").replace(/\s+/g, " ").trim();
  return clean.length <= LABEL_CHARS ? clean : clean.slice(0, LABEL_CHARS - 1) + "…";
}

async function api(path, body) {
  const headers = { "Content-Type": "application/json" };
  if (state.token) headers["Authorization"] = "Bearer " + state.token;
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

function el(tag, text, cls) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  if (cls) node.className = cls;
  return node;
}

function nodeLink(id, label) {
  const a = el("a", label || id, "node-link");
  a.dataset.node = id;
  a.addEventListener("click", () => selectNode(id));
  return a;
}

function showUnavailable(graph) {
  document.getElementById("graph").hidden = true;
  document.getElementById("legend").hidden = true;
  document.getElementById("unavailable").hidden = false;
  document.getElementById("unavailable-reason").textContent =
    "Tier: " + graph.tier + ". " + graph.reason;
  document.getElementById("unavailable-action").textContent = graph.action === "settings"
    ? "Change the setting in the workspace's config.toml, then restart the service."
    : "Migrate this workspace to tier v3: run `memory config migrate --to-v3`, " +
      "then restart the service.";
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

async function loadGraph() {
  let graph;
  try {
    graph = await api("/v1/memory-graph");
  } catch (err) {
    document.getElementById("counts").textContent = err.message;
    return;
  }
  if (!graph.available) {
    showUnavailable(graph);
    return;
  }
  const c = graph.counts;
  document.getElementById("counts").textContent =
    `${c.pages} pages · ${c.pending} pending · ${c.authored_edges} links · ` +
    `${c.learned_edges} learned edges` +
    (c.dangling_links_dropped ? ` · ${c.dangling_links_dropped} dangling links not drawn` : "");
  const dense = graph.nodes.length > LABELLED_UP_TO;
  const elements = graph.nodes.map((n) => ({
    data: { id: n.id, label: shortLabel(n.title || n.id), full: n.title || n.id, kind: n.kind,
            core: n.core ? "yes" : "no", degree: n.degree, score: 0 },
    classes: dense && !n.core ? "quiet" : "",
  })).concat(graph.edges.map((e, i) => ({
    data: { id: "e" + i, source: e.source, target: e.target, kind: e.kind,
            weight: e.weight || 1 },
  })));
  state.cy = cytoscape({
    container: document.getElementById("graph"),
    elements,
    style: [
      { selector: "node", style: {
        "background-color": "#3867d6", label: "data(label)", "font-size": 11,
        width: "mapData(degree, 0, 20, 10, 30)", height: "mapData(degree, 0, 20, 10, 30)",
        color: "#1d232b", "text-valign": "bottom", "text-margin-y": 2,
        "text-wrap": "ellipsis", "text-max-width": 96, "min-zoomed-font-size": 6,
        "text-background-color": "#f6f7f9", "text-background-opacity": 0.85,
        "text-background-padding": 1 } },
      { selector: "node.quiet", style: { label: "" } },
      { selector: "node[core = 'yes']", style: { "border-width": 3, "border-color": "#f7b731" } },
      { selector: "node[kind = 'pending']", style: {
        shape: "diamond", "background-color": "#f7b731", "border-style": "dashed",
        "border-width": 1, "border-color": "#a5781b" } },
      { selector: "edge", style: { width: 1, "line-color": "#9aa5b1", "curve-style": "bezier" } },
      { selector: "edge[kind = 'learned']", style: {
        "line-color": "#20bf6b", width: "mapData(weight, 0, 10, 1, 6)" } },
      { selector: "edge[kind = 'pending']", style: { "line-style": "dashed",
        "line-color": "#f7b731" } },
      { selector: "node.hit", style: { label: "data(label)",
        "background-color": "mapData(score, 0, 1, #f8c0ca, #c0143c)",
        "border-width": 2, "border-color": "#7a0c25" } },
      { selector: "node.hover", style: { label: "data(label)" } },
      { selector: ":selected", style: { label: "data(label)", "border-width": 4,
        "border-color": "#1d232b" } },
    ],
    layout: graph.nodes.length > 400
      ? { name: "grid", avoidOverlap: true, avoidOverlapPadding: 60 }
      : { name: "cose", animate: false, componentSpacing: 30, idealEdgeLength: () => 80,
          padding: 30, nodeDimensionsIncludeLabels: true },
    maxZoom: 3,
  });
  spreadLabels(state.cy);
  state.cy.fit(undefined, 30);
  if (state.cy.zoom() > MAX_FIT_ZOOM) { // a small graph is not blown up: labels keep their room
    state.cy.zoom(MAX_FIT_ZOOM);
    state.cy.center();
  }
  state.cy.on("tap", "node", (evt) => selectNode(evt.target.id()));
  const tip = document.getElementById("tooltip");
  state.cy.on("mouseover", "node", (evt) => {
    evt.target.addClass("hover");
    const at = evt.renderedPosition || evt.target.renderedPosition();
    tip.textContent = evt.target.data("full") +
      (evt.target.hasClass("hit") ? " · score " + evt.target.data("score").toFixed(2) : "");
    tip.style.left = (at.x + 12) + "px";
    tip.style.top = (at.y + 12) + "px";
    tip.hidden = false;
  });
  state.cy.on("mouseout", "node", (evt) => {
    evt.target.removeClass("hover");
    tip.hidden = true;
  });
  document.body.dataset.graphReady = "yes";
}

// Push apart nodes whose labelled boxes overlap (the layouts place nodes, not
// their labels), along the axis that needs the smaller move, until none do.
function spreadLabels(cy) {
  const nodes = cy.nodes().filter((n) => n.style("label")).toArray();
  if (nodes.length > 400) return;
  for (let pass = 0; pass < 50; pass++) {
    let moved = false;
    const boxes = nodes.map((n) =>
      n.boundingBox({ includeNodes: true, includeEdges: false, includeLabels: true }));
    for (let i = 0; i < nodes.length; i++) {
      for (let j = i + 1; j < nodes.length; j++) {
        const a = boxes[i], b = boxes[j];
        const dx = Math.min(a.x2, b.x2) - Math.max(a.x1, b.x1);
        const dy = Math.min(a.y2, b.y2) - Math.max(a.y1, b.y1);
        if (dx <= -2 || dy <= -2) continue;
        const pa = nodes[i].position(), pb = nodes[j].position();
        if (dx + 4 < dy + 4) {
          const step = (dx + 4) / 2 * (pa.x <= pb.x ? 1 : -1);
          nodes[i].position({ x: pa.x - step, y: pa.y });
          nodes[j].position({ x: pb.x + step, y: pb.y });
        } else {
          const step = (dy + 4) / 2 * (pa.y <= pb.y ? 1 : -1);
          nodes[i].position({ x: pa.x, y: pa.y - step });
          nodes[j].position({ x: pb.x, y: pb.y + step });
        }
        boxes[i] = nodes[i].boundingBox({ includeNodes: true, includeEdges: false, includeLabels: true });
        boxes[j] = nodes[j].boundingBox({ includeNodes: true, includeEdges: false, includeLabels: true });
        moved = true;
      }
    }
    if (!moved) return;
  }
}

async function selectNode(id) {
  const detail = document.getElementById("detail");
  detail.replaceChildren(el("p", "Loading…", "hint"));
  let node;
  try {
    node = await api("/v1/memory-graph-node?id=" + encodeURIComponent(id));
  } catch (err) {
    detail.replaceChildren(el("p", err.message, "missing"));
    return;
  }
  if (state.cy) {
    state.cy.$(":selected").unselect();
    const n = state.cy.getElementById(node.filed_from ? node.page.slug : id);
    if (n.length) { n.select(); }
  }
  detail.replaceChildren(...renderDetail(node));
  detail.dataset.node = id;
}

function renderDetail(node) {
  const out = [];
  if (node.kind === "pending") {
    out.push(el("h2", "Pending fact"));
    out.push(el("p", "Remembered " + node.entry.at + "; not yet filed into a page.",
                "pending-note"));
    out.push(el("pre", node.entry.text, "body"));
  } else {
    const page = node.page;
    out.push(el("h2", page.title));
    if (node.filed_from) {
      out.push(el("p", "The pending fact was filed into this page.", "pending-note"));
    }
    out.push(el("p", page.slug + (page.fresh_at ? " · dated " + page.fresh_at.slice(0, 10) : ""),
                "meta"));
    if (page.source && page.source.startsWith("import:")) {
      out.push(el("p", "Imported from " + page.source.slice(7) +
                  ": untrusted reference material.", "untrusted"));
    }
    if (page.summary) out.push(el("p", page.summary));
    out.push(renderMarkdown(node.body));
    out.push(...renderFacts(node));
    out.push(pageActions(node));
  }
  out.push(el("h3", "Why selected"));
  if (node.selected_in.length === 0) {
    out.push(el("p", "Not on any recent card.", "hint"));
  } else {
    const list = el("ul");
    list.id = "why-selected";
    for (const turn of node.selected_in) {
      const item = el("li");
      item.append(el("span", turn.at.replace("T", " ").slice(0, 16) + " · " +
                  turn.conversation_id + " · "));
      for (const lane of turn.lanes) item.append(el("span", lane, "lane"));
      list.append(item);
    }
    out.push(list);
  }
  out.push(el("h3", "Links out"));
  out.push(linkList(node.links_out.map((l) => [l.target, l.exists])));
  out.push(el("h3", "Links in"));
  out.push(linkList(node.links_in.map((s) => [s, true])));
  if (node.learned.length) {
    out.push(el("h3", "Often chosen with"));
    out.push(linkList(node.learned.map((l) => [l.slug, true, " (" + l.weight + ")"])));
  }
  return out;
}

// A page's prose as readable blocks: headings, bullets, paragraphs and [[links]],
// every piece of text set with textContent (never parsed as markup).
function renderMarkdown(body) {
  const box = el("div", null, "body");
  let list = null;
  let para = null;
  for (const raw of String(body || "").split("\n")) {
    const line = raw.trimEnd();
    const heading = /^(#{1,6}) +(.*)$/.exec(line);
    const bullet = /^\s*[-*] +(.*)$/.exec(line);
    if (!line.trim()) { list = null; para = null; continue; }
    if (heading) {
      box.append(inline(el("h4"), heading[2]));
      list = null; para = null;
    } else if (bullet) {
      if (!list) { list = el("ul"); box.append(list); }
      list.append(inline(el("li"), bullet[1]));
      para = null;
    } else {
      if (!para) { para = el("p"); box.append(para); } else { para.append(" "); }
      inline(para, line.trim());
      list = null;
    }
  }
  return box;
}

function inline(node, text) {
  const parts = String(text).split(/\[\[([^\]|#]+)(?:[|#][^\]]*)?\]\]/);
  parts.forEach((part, i) => node.append(i % 2 ? nodeLink(part) : document.createTextNode(part)));
  return node;
}

function renderFacts(node) {
  if (!node.facts || node.facts.length === 0) return [];
  const list = el("ul");
  list.id = "fact-list";
  for (const fact of node.facts) {
    const item = el("li", null, "fact " + fact.status);
    item.dataset.id = fact.id;
    item.append(el("span", fact.date + " ", "meta"));
    item.append(el("span", fact.text));
    if (fact.status !== "current") {
      const why = fact.status === "superseded" ? "replaced" : "no longer true";
      item.append(el("span", " (" + why + (fact.until ? " " + fact.until : "") + ")", "meta"));
    } else {
      item.append(button("Correct", "correct", () => correctFact(node, fact)));
      item.append(button("Forget", "forget", () => forgetFact(node, fact)));
    }
    list.append(item);
  }
  return [el("h3", "Facts"), list];
}

function button(label, action, onClick) {
  const b = el("button", label, "small");
  b.type = "button";
  b.dataset.action = action;
  b.addEventListener("click", onClick);
  return b;
}

function pageActions(node) {
  const box = el("div", null, "actions");
  box.id = "page-actions";
  const core = node.page.core;
  box.append(button(core ? "Unpin (not core)" : "Pin as core", "pin", () =>
    act(`${core ? "Unpin" : "Pin"} ${node.page.slug}?`, "/v1/memory/pages/pin",
        { slug: node.page.slug, core: !core }, node.id)));
  box.append(button("Delete page", "delete", () =>
    act(`Delete ${node.page.slug}? It goes to the trash and can be restored.`,
        "/v1/memory/pages/delete", { slug: node.page.slug }, null)));
  return box;
}

function forgetFact(node, fact) {
  act(`Forget this fact?\n\n${fact.text}`, "/v1/memory/forget",
      { what: fact.id, page: node.page.slug }, node.id);
}

function correctFact(node, fact) {
  const text = window.prompt("Correct this fact to:", fact.text);
  if (text === null || !text.trim() || text.trim() === fact.text) return;
  act(`Replace\n\n${fact.text}\n\nwith\n\n${text.trim()}?`, "/v1/memory/correct",
      { fact_id: fact.id, text: text.trim() }, node.id);
}

// Confirm, then call the route, the status line saying how it went; whether it went.
async function confirmedCall(question, path, body, done) {
  if (!window.confirm(question)) return false;
  const status = document.getElementById("action-status");
  status.textContent = "Working…";
  try {
    await api(path, body);
    status.textContent = done;
    return true;
  } catch (err) {
    status.textContent = err.message;
    return false;
  }
}

// Counted once an action's results are on screen (the browser tests wait on it).
function noteActed() {
  document.body.dataset.acted = String(Number(document.body.dataset.acted || 0) + 1);
}

// Confirm, call the route, then show what changed (or why it did not).
async function act(question, path, body, reselect) {
  if (!(await confirmedCall(question, path, body, "Done."))) return;
  await loadGraph();
  loadLearning();
  if (reselect) {
    await selectNode(reselect);
  } else {
    document.getElementById("detail").replaceChildren(el("p", "Deleted.", "hint"));
  }
  noteActed();
}

function linkList(rows) {
  if (rows.length === 0) return el("p", "none", "hint");
  const list = el("ul");
  for (const [target, exists, extra] of rows) {
    const item = el("li");
    item.append(exists ? nodeLink(target) : el("span", target + " (no such page)", "missing"));
    if (extra) item.append(el("span", extra, "meta"));
    list.append(item);
  }
  return list;
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

async function loadProfile() {
  let data;
  try {
    data = await api("/v1/profile");
  } catch (err) {
    document.getElementById("profile-files").replaceChildren(el("p", String(err), "meta"));
    return;
  }
  const files = document.getElementById("profile-files");
  files.replaceChildren();
  for (const file of data.files) {
    if (!file.exists) continue;
    const box = el("details", null, "profile-file");
    const protectedNote = file.protected ? " (protected: never searched)" : "";
    box.append(el("summary", `${file.name}: ${file.chars} / ${file.budget} characters${protectedNote}`));
    box.append(el("pre", file.text));
    files.append(box);
  }
  if (!files.children.length) files.append(el("p", "No profile files yet.", "meta"));
  const list = document.getElementById("promotion-list");
  list.replaceChildren();
  for (const record of data.active_promotions) {
    const item = el("li", record.content);
    item.dataset.id = record.id;
    item.append(el("div", `${record.kind}, from sessions ${record.evidence_sessions.join(", ")}`, "meta"));
    list.append(item);
  }
  if (!list.children.length) list.append(el("li", "None yet.", "meta"));
}

// What the memory is learning from: the model, curation, the conversation log.
async function loadLearning() {
  const box = document.getElementById("learning-state");
  let data;
  try {
    data = await api("/v1/curation/status");
  } catch (err) {
    box.replaceChildren(el("p", err.message, "meta"));
    return;
  }
  const rows = [
    ["Model", data.model_configured ? "configured"
      : "not configured: curation is off; remember and promotion still learn"],
    ["Curation mode", data.curation_mode],
    ["Sessions logged", `${data.sessions} (${data.messages} messages)`],
    ["Finalizations", countsText(data.finalizations)],
    ["Curation candidates", countsText(data.candidates)],
    ["Promotions", countsText(data.promotions)],
  ];
  const list = el("dl");
  for (const [name, value] of rows) {
    list.append(el("dt", name));
    list.append(el("dd", value));
  }
  box.replaceChildren(list);
}

function countsText(counts) {
  const parts = Object.entries(counts || {}).map(([k, v]) => `${v} ${k}`);
  return parts.length ? parts.join(", ") : "none";
}

document.getElementById("search-form").addEventListener("submit", (evt) => {
  evt.preventDefault();
  const query = document.getElementById("search-box").value.trim();
  if (query) search(query);
});
document.getElementById("token-save").addEventListener("click", () => {
  state.token = document.getElementById("token-input").value;
  sessionStorage.setItem(TOKEN_KEY, state.token);
  document.getElementById("token-bar").hidden = true;
  loadTier();
  loadGraph();
  loadProfile();
  loadLearning();
});
loadTier();
loadGraph();
loadProfile();
loadLearning();
