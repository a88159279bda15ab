// Conversations in the Memory tab: the log's sessions (title, date, turns), the
// turns of one session or of one episode a search or a card chose, and
// forgetting a message or a whole session (the route every surface uses).
// Conversation text is only ever set with textContent: it is data, never markup.
"use strict";

const SESSIONS_SHOWN = 20;

function isoDay(seconds) {
  return new Date(seconds * 1000).toISOString().slice(0, 10);
}

async function loadSessions() {
  const list = document.getElementById("session-list");
  const data = await listed(list, `/v1/sessions?limit=${SESSIONS_SHOWN}`);
  if (data === null) return;
  list.replaceChildren();
  for (const s of data.sessions) {
    const item = el("li");
    const link = nameEl("a", s.title, "session-link");
    link.dataset.session = s.id;
    link.addEventListener("click", () => showTurns(s.id));
    item.append(link, el("span", ` ${isoDay(s.started)} · ${s.messages} turns`, "meta"));
    list.append(item);
  }
  if (!data.sessions.length) list.append(el("li", "No conversations logged yet.", "meta"));
}

// A session's turns; with `from` and `to` (an episode's span, ISO times), only those.
async function showTurns(sessionId, from, to) {
  const box = document.getElementById("session-turns");
  box.dataset.session = "";
  let data;
  try {
    data = await api("/v1/sessions/" + encodeURIComponent(sessionId));
  } catch (err) {
    box.replaceChildren(el("p", err.message, "missing"));
    return;
  }
  // ISO times parse to whole milliseconds and the log keeps microseconds: the
  // window is widened by a millisecond each way, so its own first and last turns stay in.
  const start = from ? Date.parse(from) - 1 : -Infinity;
  const end = to ? Date.parse(to) + 1 : Infinity;
  const turns = el("ol", null, "turns");
  for (const m of data.messages) {
    const at = m.at * 1000;
    if (at < start || at > end) continue;
    const item = el("li", null, "turn " + m.role);
    item.dataset.message = String(m.id);
    item.append(el("span", `${new Date(at).toISOString().slice(0, 16).replace("T", " ")} ` +
      `${m.role === "user" ? "you" : m.role}: `, "meta"));
    item.append(el("span", m.text, "said"));
    item.append(button("Forget", "forget-message", () => forgetTurns(sessionId, m)));
    turns.append(item);
  }
  const head = el("h3", data.title);
  const note = from ? el("p", "The turns of one episode of this conversation.", "hint")
    : el("p", `${data.messages.length} turns, started ${isoDay(data.started)}.`, "hint");
  const all = button("Forget this conversation", "forget-session", () => forgetTurns(sessionId));
  box.replaceChildren(head, note, turns, all);
  box.dataset.session = sessionId;
}

// Forget one message (`message`) or the whole session, then show what is left.
async function forgetTurns(sessionId, message) {
  const what = message ? `this message?\n\n${message.text}` : `the whole conversation ${sessionId}?`;
  const question = `Forget ${what}\n\nIt leaves the log, its search and every card.`;
  const path = `/v1/conversations/${encodeURIComponent(sessionId)}/forget`;
  const body = message ? { message_id: message.id } : {};
  if (!(await confirmedCall(question, path, body, "Forgotten."))) return;
  await loadSessions();
  if (message) {
    await showTurns(sessionId);
  } else {
    document.getElementById("session-turns").replaceChildren(el("p", "Forgotten.", "hint"));
  }
  noteActed();
}

// A search hit that is an episode: a link to its turns, not to a graph node.
function episodeLink(hit) {
  const link = el("a", `Conversation ${hit.session_id}, ${String(hit.from).slice(0, 10)}`,
    "episode-link");
  link.dataset.session = hit.session_id;
  link.addEventListener("click", () => showTurns(hit.session_id, hit.from, hit.to));
  return link;
}

