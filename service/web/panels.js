// The tending panels: remember a fact (scanned, the answer shown), problems
// (doctor's findings with their fix), facts held for review (release, forget),
// the trash (restore), the profile (its lines, add one, forget one) and what
// memory learns from. Each change goes through `act` (app.js) and the routes
// every surface uses.
"use strict";

async function rememberSubmitted(evt) {
  evt.preventDefault();
  const text = document.getElementById("remember-text").value.trim();
  const answer = document.getElementById("remember-answer");
  if (!text) {
    answer.textContent = "Type the fact to remember first.";
    return;
  }
  const hints = document.getElementById("remember-hints").value.split(",")
    .map((h) => h.trim()).filter(Boolean);
  answer.textContent = "Remembering…";
  let entry;
  try {
    entry = await api("/v1/memory/remember", { text, hints });
  } catch (err) {
    answer.textContent = "Not remembered: " + err.message;
    answer.dataset.outcome = "refused";
    noteActed();
    return;
  }
  answer.textContent = entry.held
    ? `Held for review (rule ${entry.held}): ${entry.why}. It is kept, not filed, ` +
      "until you release it under Held for review."
    : entry.voice === "passed_on"
      ? `Remembered (${entry.id}) as ${whose(entry)}: a note that takes none of your facts.`
      : `Remembered (${entry.id}); the next consolidation files it into a page.`;
  answer.dataset.outcome = entry.held ? "held" : entry.voice === "passed_on" ? "passed_on" : "stored";
  document.getElementById("remember-text").value = "";
  await refreshAll();
  noteActed();
}

// Whose words a passed-on text is, as the remember answer names them.
function whose(entry) {
  return entry.speaker ? `${entry.speaker}'s words` : "words you pass on";
}

// A text whose `backticked` parts are commands: shown as code, never as markup
// (each part is a text node or a <code> holding text).
function withCode(text, cls) {
  const box = el("div", null, cls);
  text.split("`").forEach((part, i) => {
    if (part) box.append(i % 2 ? el("code", part) : document.createTextNode(part));
  });
  return box;
}

async function loadProblems() {
  const list = document.getElementById("problem-list");
  const data = await listed(list, "/v1/memory/problems?index=1");
  if (data === null) return;
  list.replaceChildren();
  for (const problem of data.problems) {
    const item = el("li", null, "problem");
    item.dataset.kind = problem.kind;
    const message = withCode(problem.message);
    message.dir = "auto";
    item.append(el("strong", problem.kind.replace(/_/g, " ") + ": "), message,
      withCode("Fix: " + problem.fix, "fix"));
    list.append(item);
  }
  if (!data.problems.length) list.append(el("li", "No problems found.", "meta"));
  for (const note of data.notes) list.append(el("li", note, "meta"));
}

async function loadHeld() {
  const list = document.getElementById("held-list");
  const data = await listed(list, "/v1/memory/held");
  if (data === null) return;
  list.replaceChildren();
  for (const row of data.held) {
    const item = el("li", null, "held-fact");
    item.dataset.id = row.id;
    const text = el("div", row.text, "said");
    text.dir = "auto";
    item.append(text, el("div", `${isoMinute(row.at)} · rule ${row.rule}: ${row.why}`, "meta"));
    const box = el("div", null, "actions");
    box.append(releaseButton(row), forgetEntryButton(row));
    item.append(box);
    list.append(item);
  }
  if (!data.held.length) list.append(el("li", "Nothing is held.", "meta"));
}

async function loadTrash() {
  const list = document.getElementById("trash-list");
  const rows = await listed(list, "/v1/memory/trash");
  if (rows === null) return;
  list.replaceChildren();
  for (const row of rows.trash) {
    const item = el("li", null, "trashed");
    item.dataset.name = row.name;
    item.append(nameEl("span", row.page), el("span", ` deleted ${isoMinute(row.deleted_at)}`,
      "meta"));
    item.append(button("Restore", "restore", () =>
      act(`Restore ${row.page}?`, "/v1/memory/pages/restore", { name: row.name }, "Restored.")));
    list.append(item);
  }
  if (!rows.trash.length) list.append(el("li", "The trash is empty.", "meta"));
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
    box.dataset.file = file.name;
    const protectedNote = file.protected ? " (protected: never searched)" : "";
    box.append(el("summary", `${file.name}: ${file.chars} / ${file.budget} characters${protectedNote}`));
    const lines = el("ul", null, "profile-lines");
    for (const line of file.lines) {
      const item = el("li", null, "profile-line");
      item.dataset.line = line;
      const text = el("span", line);
      text.dir = "auto";
      item.append(text, button("Forget", "forget-line", () =>
        act(`Forget this line of ${file.name}?\n\n${line}`, "/v1/memory/forget",
            { what: line }, "Forgotten.")));
      lines.append(item);
    }
    box.append(lines, el("pre", file.text, "file-text"));
    box.open = file.lines.length > 0;
    files.append(box);
  }
  if (!files.children.length) files.append(el("p", "No profile files yet.", "meta"));
  await loadPending();
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

// Lines that ask the assistant to act, parked until the person confirms each
// here (a trusted line is on every card).
async function loadPending() {
  const list = document.getElementById("pending-lines");
  if (!list) return;
  const data = await listed(list, "/v1/profile/pending");
  if (data === null) return;
  list.replaceChildren();
  for (const row of data.pending) {
    const item = el("li", null, "pending-line");
    item.dataset.id = row.id;
    const text = el("span", `${row.file}: ${row.text}`);
    text.dir = "auto";
    item.append(text, el("div", `${row.reason} (via ${row.via})`, "meta"),
      button("Confirm", "confirm-line", () =>
        act(`Write this line to ${row.file}? It will be trusted on every card.\n\n${row.text}`,
            `/v1/profile/pending/${encodeURIComponent(row.id)}/confirm`, {}, "Written.")),
      button("Forget", "forget-pending", () =>
        act(`Forget this waiting line?\n\n${row.text}`, "/v1/memory/forget",
            { what: row.text }, "Forgotten.")));
    list.append(item);
  }
  if (!data.pending.length) list.append(el("li", "Nothing waits for your confirmation.", "meta"));
}

async function lineSubmitted(evt) {
  evt.preventDefault();
  const text = document.getElementById("line-text").value.trim();
  const file = document.getElementById("line-file").value;
  const answer = document.getElementById("line-answer");
  if (!text) {
    answer.textContent = "Type the line to add first.";
    return;
  }
  try {
    const done = await api("/v1/profile/lines", { text, file });
    if (done.pending) {
      answer.textContent = `Waiting for your confirmation below: ${done.reason}`;
      answer.dataset.outcome = "pending";
    } else {
      answer.textContent = `Added to ${done.file}: ${done.line} (${done.chars} / ${done.budget}).`;
      answer.dataset.outcome = "added";
    }
    document.getElementById("line-text").value = "";
  } catch (err) {
    answer.textContent = "Not added: " + err.message;
    answer.dataset.outcome = "refused";
  }
  await loadProfile();
  noteActed();
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
    ["Curation mode", data.model_configured ? data.curation_mode
      : `${data.curation_mode} (set, but off until a model is configured)`],
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
