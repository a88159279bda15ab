// A node's detail: the page rendered, its facts (current, then earlier, each
// newest first, each with its history), the page's history, why it was
// selected, its links and what it is often chosen with; or a pending fact, with
// why it is held when it is. Every action goes through `act` (app.js).
"use strict";

async function selectNode(id, refreshing) {
  const detail = document.getElementById("detail");
  if (!refreshing) detail.replaceChildren(el("p", "Loading…", "hint"));
  let node;
  try {
    node = await api("/v1/memory-graph-node?id=" + encodeURIComponent(id));
  } catch (err) {
    detail.replaceChildren(el("p", refreshing ? `${id} is no longer in memory.` : err.message,
      refreshing ? "hint" : "missing"));
    delete detail.dataset.node;
    state.selected = null;
    return;
  }
  state.selected = id;
  if (state.cy) {
    state.cy.$(":selected").unselect();
    const n = state.cy.getElementById(node.filed_from ? node.page.slug : id);
    if (n.length) { n.select(); }
  }
  detail.replaceChildren(...renderDetail(node));
  detail.dataset.node = id;
  if (node.kind !== "pending") loadHistory(node.page.slug, document.getElementById("page-history"));
}

function renderDetail(node) {
  const out = node.kind === "pending" ? renderPending(node) : renderPage(node);
  out.push(el("h3", "Why selected"));
  if (node.selected_in.length === 0) {
    out.push(el("p", "Not on the card of any live conversation. A card asked without a " +
      "conversation id is not kept, and a conversation's turns go when it goes quiet.", "hint"));
  } else {
    const list = el("ul");
    list.id = "why-selected";
    for (const turn of node.selected_in) {
      const item = el("li");
      item.append(el("span", isoMinute(turn.at) + " · "), nameEl("span", turn.conversation_id),
        el("span", " · "));
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
    const list = linkList(node.learned.map((l) => [l.slug, true, chosenTogether(l.weight)]));
    list.id = "learned-list";
    out.push(list);
  }
  return out;
}

// A learned weight in words (the number on hover): how often the read path
// put the two pages on one card, decayed over time.
function chosenTogether(weight) {
  const words = weight >= 5 ? "very often chosen together"
    : weight >= 2 ? "often chosen together" : "sometimes chosen together";
  return [words, `weight ${weight}`];
}

function renderPending(node) {
  const out = [];
  const entry = node.entry;
  if (node.held) {
    out.push(el("h2", "Held for review"));
    out.push(el("p", `Remembered ${isoMinute(entry.at)}; held by the scanner (rule ` +
      `${node.held.rule}): ${node.held.why}. It is kept, not filed, until released.`,
      "held-note"));
  } else {
    out.push(el("h2", "Pending fact"));
    out.push(el("p", `Remembered ${isoMinute(entry.at)}; not yet filed into a page.`,
      "pending-note"));
  }
  const text = el("pre", entry.text, "body");
  text.dir = "auto";
  out.push(text);
  const box = el("div", null, "actions");
  box.id = "pending-actions";
  if (node.held) box.append(releaseButton(entry));
  box.append(forgetEntryButton(entry));
  out.push(box);
  return out;
}

function releaseButton(entry) {
  return button("Release", "release", () =>
    act(`Release this fact? The next consolidation files it.\n\n${entry.text}`,
        "/v1/memory/release", { ids: [entry.id] }, "Released."));
}

function forgetEntryButton(entry) {
  return button("Forget", "forget", () =>
    act(`Forget this fact? It leaves the buffer (its day's archive keeps what was said).` +
        `\n\n${entry.text}`, "/v1/memory/forget", { what: entry.id }, "Forgotten."));
}

function renderPage(node) {
  const out = [];
  const page = node.page;
  out.push(nameEl("h2", page.title));
  if (node.filed_from) {
    out.push(el("p", "The pending fact was filed into this page.", "pending-note"));
  }
  const meta = el("p", null, "meta");
  meta.append(nameEl("span", page.slug),
    el("span", page.fresh_at ? " · dated " + page.fresh_at.slice(0, 10) : ""));
  out.push(meta);
  if (page.source && page.source.startsWith("import:")) {
    out.push(el("p", "Imported from " + page.source.slice(7) +
                ": untrusted reference material.", "untrusted"));
  }
  if (page.summary) out.push(el("p", page.summary));
  out.push(renderMarkdown(node.body));
  out.push(...renderFacts(node));
  out.push(pageActions(node));
  out.push(el("h3", "History"));
  const history = el("ol", null, "history");
  history.id = "page-history";
  out.push(history);
  return out;
}

// A page's prose as readable blocks: headings, bullets, paragraphs and [[links]],
// every piece of text set with textContent (never parsed as markup).
function renderMarkdown(body) {
  const box = el("div", null, "body");
  box.dir = "auto";
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

function newestFirst(a, b) {
  return String(b.date).localeCompare(String(a.date)) ||
    String(b.until || "").localeCompare(String(a.until || ""));
}

// Current facts, then earlier ones (replaced or no longer true), each newest first.
function renderFacts(node) {
  const facts = node.facts || [];
  if (facts.length === 0) return [];
  const out = [];
  const current = facts.filter((f) => f.status === "current").sort(newestFirst);
  const earlier = facts.filter((f) => f.status !== "current").sort(newestFirst);
  for (const [title, id, rows] of [["Facts", "fact-list", current],
                                   ["Earlier", "earlier-list", earlier]]) {
    if (!rows.length) continue;
    const list = el("ul", null, "facts");
    list.id = id;
    for (const fact of rows) list.append(factItem(node, fact));
    out.push(el("h3", title), list);
  }
  return out;
}

function factItem(node, fact) {
  const item = el("li", null, "fact " + fact.status);
  item.dataset.id = fact.id;
  item.append(el("span", fact.date + " ", "meta"));
  const text = el("span", fact.text, "fact-text");
  text.dir = "auto";
  item.append(text);
  if (fact.status !== "current") {
    const why = fact.status === "superseded" ? "replaced" : "no longer true";
    item.append(el("span", " (" + why + (fact.until ? " " + fact.until : "") + ")", "meta"));
  } else {
    item.append(button("Correct", "correct", () => correctFact(node, fact)));
    item.append(button("Forget", "forget", () => forgetFact(node, fact)));
  }
  const history = el("ol", null, "history fact-history");
  item.append(button("History", "fact-history", () =>
    history.childElementCount ? history.replaceChildren() : loadHistory(fact.id, history)));
  item.append(history);
  return item;
}

// What changed about a page or a fact, oldest first: when, what, through what.
async function loadHistory(what, into) {
  if (!into) return;
  const data = await listed(into, "/v1/memory/history/" + slugPath(what));
  if (data === null) return;
  const events = [...data.events].sort((a, b) => String(a.at).localeCompare(String(b.at)));
  into.replaceChildren();
  for (const event of events) {
    const item = el("li", null, "event");
    item.dataset.op = event.op;
    item.append(el("span", isoMinute(event.at) + " ", "meta"), el("strong", event.op),
      el("span", " via " + event.via, "meta"));
    const said = event.text || (event.from && event.to ? `${event.from} → ${event.to}` : "");
    if (said) item.append(nameEl("div", said, "meta"));
    into.append(item);
  }
  if (!events.length) into.append(el("li", "Nothing recorded yet.", "meta"));
  into.dataset.loaded = what;
}

function pageActions(node) {
  const box = el("div", null, "actions");
  box.id = "page-actions";
  const core = node.page.core;
  box.append(button(core ? "Unpin (not core)" : "Pin as core", "pin", () =>
    act(`${core ? "Unpin" : "Pin"} ${node.page.slug}?`, "/v1/memory/pages/pin",
        { slug: node.page.slug, core: !core })));
  box.append(button("Edit page", "edit", () => editPage(node.page.slug)));
  box.append(button("Rename", "move", () => renamePage(node.page.slug)));
  box.append(button("Delete page", "delete", () =>
    act(`Delete ${node.page.slug}? It goes to the trash and can be restored.`,
        "/v1/memory/pages/delete", { slug: node.page.slug }, "Deleted: it is in the trash.")));
  return box;
}

function forgetFact(node, fact) {
  act(`Forget this fact?\n\n${fact.text}`, "/v1/memory/forget",
      { what: fact.id, page: node.page.slug });
}

function correctFact(node, fact) {
  const text = window.prompt("Correct this fact to:", fact.text);
  if (text === null || !text.trim() || text.trim() === fact.text) return;
  act(`Replace\n\n${fact.text}\n\nwith\n\n${text.trim()}?`, "/v1/memory/correct",
      { fact_id: fact.id, text: text.trim() });
}

function linkList(rows) {
  if (rows.length === 0) return el("p", "none", "hint");
  const list = el("ul");
  for (const [target, exists, extra] of rows) {
    const item = el("li");
    item.append(exists ? nodeLink(target) : nameEl("span", target + " (no such page)", "missing"));
    if (extra) {
      const [words, hover] = extra;
      const note = el("span", " — " + words, "meta weight");
      note.title = hover;
      item.append(note);
    }
    list.append(item);
  }
  return list;
}

function slugPath(slug) {
  return encodeURIComponent(slug).replace(/%2F/g, "/");
}

// The page's whole file in an editor, saved only if it still has the content
// hash it was opened with: an edit made meanwhile is refused, never lost.
async function editPage(slug) {
  let page;
  try {
    page = await api("/v1/memory/pages/" + slugPath(slug));
  } catch (err) {
    document.getElementById("action-status").textContent = err.message;
    return;
  }
  const box = el("div", null, "editor");
  box.id = "page-editor";
  const area = el("textarea");
  area.value = page.content;
  area.rows = 14;
  area.dir = "auto";
  box.append(el("p", "The page's file: frontmatter, then markdown. It is validated and " +
    "scanned like ingest, and saved only if nobody changed it since it was opened.", "hint"),
    area,
    button("Save", "save", () => act(`Save ${slug}?`, "/v1/memory/pages/write",
      { slug, content: area.value, overwrite: true, expected_sha256: page.sha256 }, "Saved.")),
    button("Cancel", "cancel", () => box.remove()));
  const open = document.getElementById("page-editor");
  if (open) open.remove();
  document.getElementById("page-actions").after(box);
}

// A rename keeps the node where it was: the new slug takes the old one's place.
async function renamePage(slug) {
  const to = window.prompt(`Rename ${slug} to (links to it are rewritten):`, slug);
  if (to === null || !to.trim() || to.trim() === slug) return;
  const answer = await confirmedCall(null, "/v1/memory/pages/move",
    { slug, to: to.trim() }, "Renamed.");
  if (answer === null) return;
  const old = state.cy && state.cy.getElementById(slug);
  if (old && old.length) state.placeAt[to.trim()] = { ...old.position() };
  state.selected = to.trim();
  await refreshAll();
  noteActed();
}

// A new page from the Remember section's form, then opened.
async function newPageSubmitted(evt) {
  evt.preventDefault();
  const slug = document.getElementById("new-page-slug").value.trim();
  const content = document.getElementById("new-page-content").value;
  if (!slug) {
    document.getElementById("action-status").textContent = "Name the new page's slug first.";
    return;
  }
  const answer = await confirmedCall(null, "/v1/memory/pages/write", { slug, content },
    "Written.");
  if (answer === null) return;
  document.getElementById("new-page-form").reset();
  document.getElementById("new-page").open = false;
  state.selected = slug;
  await refreshAll();
  noteActed();
}
