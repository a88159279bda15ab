// Starts the Memory tab: the forms' handlers, then every panel's first load.
"use strict";

document.getElementById("search-form").addEventListener("submit", (evt) => {
  evt.preventDefault();
  const query = document.getElementById("search-box").value.trim();
  if (query) search(query);
});
document.getElementById("remember-form").addEventListener("submit", rememberSubmitted);
document.getElementById("line-form").addEventListener("submit", lineSubmitted);
document.getElementById("new-page-form").addEventListener("submit", newPageSubmitted);
document.getElementById("token-save").addEventListener("click", () => {
  state.token = document.getElementById("token-input").value;
  sessionStorage.setItem(TOKEN_KEY, state.token);
  document.getElementById("token-bar").hidden = true;
  openPersonSession().finally(boot);
});

function boot() {
  loadTier();
  loadGraph();
  loadHeld();
  loadTrash();
  loadProblems();
  loadProfile();
  loadLearning();
  loadSessions();
}

openPersonSession().finally(boot);
