// skillproxy inspect page: fetches /_skillproxy/api/* and POST /v1/skills/route, renders with textContent only.
"use strict";

const KEY_STORE = "skillproxy.apiKey";
const state = { skills: [], activeId: null, timer: null };
const $ = (id) => document.getElementById(id);

class AuthNeeded extends Error {}

function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (name === "class") node.className = value;
    else if (name === "title") node.title = value;
    else node.setAttribute(name, value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

async function api(path, options = {}) {
  const headers = { ...(options.headers || {}) };
  const key = sessionStorage.getItem(KEY_STORE);
  if (key) headers.Authorization = `Bearer ${key}`;
  const response = await fetch(path, { ...options, headers });
  if (response.status === 401) throw new AuthNeeded();
  const body = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error((body.error && body.error.message) || `HTTP ${response.status}`);
  return body;
}

function needKey(message) {
  $("auth").hidden = false;
  $("auth-error").hidden = !message;
  $("auth-error").textContent = message || "";
  $("status").textContent = "Waiting for an API key";
  $("auth-key").focus();
}

async function guarded(work) {
  try {
    return await work();
  } catch (error) {
    if (error instanceof AuthNeeded) {
      const hadKey = Boolean(sessionStorage.getItem(KEY_STORE));
      sessionStorage.removeItem(KEY_STORE);
      needKey(hadKey ? "That key was refused (401). Check it against api_keys." : "");
    } else {
      $("status").textContent = `Error: ${error.message}`;
    }
    return null;
  }
}

function fill(tbody, rows, columns, emptyText) {
  tbody.replaceChildren(...(rows.length ? rows : [el("tr", {}, el("td", { class: "empty", colspan: String(columns) }, emptyText))]));
}

function pill(text, kind) { return el("span", { class: `pill ${kind || ""}` }, text); }

// ---- skills ----
async function loadCatalog() {
  const catalog = await api("/_skillproxy/api/catalog");
  state.skills = catalog.skills;
  const c = catalog.counts;
  $("skills-note").textContent = `${c.skills} skills from ${catalog.roots.length} roots (${catalog.roots.join(", ")}); `
    + `${c.shadowed} shadowed, ${c.skipped} skipped, ${c.warnings} lint warnings.`
    + (catalog.missing_roots.length ? ` Vanished roots (skills kept): ${catalog.missing_roots.join(", ")}.` : "");
  renderSkills();
  fill($("shadowed-rows"), catalog.shadowed.map((s) => el("tr", {},
    el("td", { class: "name" }, s.name), el("td", { class: "mono" }, s.location), el("td", { class: "mono" }, s.shadowed_by))),
    3, "No shadowed skills.");
  fill($("skipped-rows"), catalog.skipped.map((f) => el("tr", {},
    el("td", { class: "mono" }, f.location), el("td", {}, pill(f.rule, "bad")), el("td", {}, f.message))),
    3, "Every skill loaded.");
  return catalog;
}

function skillMatches(skill, words) {
  const haystack = [skill.name, skill.description, skill.root, ...skill.tags].join(" ").toLowerCase();
  return words.every((word) => haystack.includes(word));
}

function renderSkills() {
  const words = $("skill-search").value.toLowerCase().split(/\s+/).filter(Boolean);
  const shown = state.skills.filter((skill) => skillMatches(skill, words));
  fill($("skill-rows"), shown.map(skillRow), 5, words.length ? "No skill matches." : "No skills loaded.");
}

function skillRow(skill) {
  const flags = [skill.model_invocable ? pill("routable") : pill("explicit only", "warn")];
  if (!skill.user_invocable) flags.push(pill("no $name", "warn"));
  if (skill.shadows.length) flags.push(pill(`shadows ${skill.shadows.length}`, "warn"));
  const warnings = skill.warnings.length
    ? el("ul", { class: "warnings" }, skill.warnings.map((w) => el("li", {}, `${w.rule}: ${w.message}`)))
    : el("span", { class: "muted" }, "none");
  return el("tr", { "data-skill": skill.name },
    el("td", { class: "name" }, skill.name),
    el("td", { class: "desc" }, skill.description, skill.tags.length ? el("div", {}, skill.tags.map((t) => pill(t))) : null),
    el("td", { class: "mono", title: skill.location }, skill.root),
    el("td", {}, flags), el("td", {}, warnings));
}

// ---- requests ----
function when(seconds) { return new Date(seconds * 1000).toLocaleTimeString(); }

function skillsCell(row) {
  const names = row.selected || [];
  if (!names.length) return el("span", { class: "muted" }, "–");
  return names.map((name) => pill(row.scores[name] !== undefined ? `${name} (${row.scores[name]})` : name, row.mode));
}

function requestRow(row) {
  const tr = el("tr", { "data-request-id": row.request_id },
    el("td", { class: "mono" }, when(row.at)),
    el("td", { class: "mono" }, row.request_id),
    el("td", {}, row.surface ?? el("span", { class: "muted" }, "–")),
    el("td", {}, row.model ?? el("span", { class: "muted" }, "–")),
    el("td", {}, row.mode ? pill(row.mode, row.mode) : el("span", { class: "muted" }, `${row.method} ${row.path}`)),
    el("td", {}, skillsCell(row)),
    el("td", { class: "num" }, row.injected_chars || "–"),
    el("td", { class: `num ${row.status >= 400 ? "status-bad" : ""}` }, row.status ?? "–"),
    el("td", { class: "num" }, row.upstream_ms ?? "–"),
    el("td", { class: "num" }, row.total_ms ?? "–"));
  if (row.request_id === state.activeId) tr.classList.add("active");
  tr.addEventListener("click", () => guarded(() => showDetail(row.request_id)));
  return tr;
}

async function loadRequests() {
  const answer = await api("/_skillproxy/api/requests");
  const history = answer.history;
  $("requests-note").textContent = history.enabled
    ? `The last ${history.size} requests are kept in memory (inspect_history); newest first. Click one for its detail.`
    : "The request history is off (inspect_history: 0).";
  fill($("request-rows"), answer.data.map(requestRow), 10, history.enabled ? "No requests yet." : "History is off.");
  return answer;
}

function fact(list, name, value) {
  list.append(el("dt", {}, name), el("dd", {}, value ?? "–"));
}

async function showDetail(requestId) {
  const d = await api(`/_skillproxy/api/requests/${encodeURIComponent(requestId)}`);
  state.activeId = requestId;
  for (const tr of $("request-rows").children) tr.classList.toggle("active", tr.dataset.requestId === requestId);
  $("detail").hidden = false;
  $("detail-title").textContent = `Request ${d.request_id}`;
  const facts = $("detail-facts");
  facts.replaceChildren();
  fact(facts, "Finished", new Date(d.at * 1000).toLocaleString());
  fact(facts, "Endpoint", d.surface ? `${d.method} ${d.path} (${d.surface})` : `${d.method} ${d.path}`);
  fact(facts, "Model", d.upstream_model ? `${d.model} → ${d.upstream_model}` : d.model);
  fact(facts, "Mode", d.mode);
  fact(facts, "X-Skills-Route", d.route);
  fact(facts, "Status", d.error ? `${d.status} (${d.error})` : d.status);
  fact(facts, "Upstream / total ms", `${d.upstream_ms ?? "–"} / ${d.total_ms ?? "–"}`);
  fact(facts, "Stream, tool mode, rounds", `${d.stream ?? "–"}, ${d.tool_mode ?? "–"}, ${d.tool_rounds ?? 0}`);
  const compaction = d.line.compaction_detected;
  if (compaction) {
    fact(facts, "History compacted", `${compaction.dropped_turns} turns dropped; put back: `
      + (compaction.reinjected.join(", ") || "nothing"));
  }
  const selected = d.selected_detail.length ? d.selected_detail
    : (d.selected || []).map((name) => ({ name, score: null, confidence: d.mode, reasons: [] }));
  fill($("detail-selected"), selected.map(candidateRow), 4, "No skill was selected.");
  const injected = d.injected;
  $("detail-injected-title").textContent = {
    prepended: `Injected text (${injected.chars} characters before the user's message)`,
    replaced: `Forwarded message (${injected.chars} characters: the message was replaced by a skill packet)`,
    none: "Injected text",
  }[injected.how] + (injected.truncated ? ", cut short" : "");
  $("detail-injected").textContent = injected.text || "(nothing was injected)";
  $("detail-sent").textContent = d.sent_text ?? "(not a chat request)";
  $("detail-events").textContent = JSON.stringify(d.events, null, 2);
  $("detail").scrollIntoView({ block: "nearest" });
}

// ---- try a prompt ----
function candidateRow(c) {
  return el("tr", { "data-skill": c.name },
    el("td", { class: "name" }, c.name),
    el("td", { class: "num" }, c.score ?? "–"),
    el("td", {}, pill(c.confidence, c.confidence)),
    el("td", { class: "reasons" }, (c.reasons || []).join("; ") || "–"));
}

async function tryRoute(text) {
  const result = await api("/v1/skills/route", {
    method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ messages: [{ role: "user", content: text }] }),
  });
  const chosen = result.selected.length ? `routed to ${result.selected.join(", ")}` : "no skill routed";
  $("try-summary").textContent = `mode: ${result.mode} · ${chosen} · X-Skills-Route: ${result.route}`
    + ` · ${result.injected_chars} characters injected`;
  const selected = new Set(result.selected);
  const rows = result.candidates.length ? result.candidates
    : result.selected.map((name) => ({ name, score: null, confidence: result.mode, reasons: [] }));
  fill($("try-rows"), rows.slice(0, 8).map((c) => {
    const tr = candidateRow(c);
    if (selected.has(c.name)) tr.classList.add("active");
    return tr;
  }), 4, "No skill matched this message.");
  $("try-result").hidden = false;
}

// ---- wiring ----
async function loadAll() {
  const catalog = await guarded(loadCatalog);
  if (!catalog) return;
  $("auth").hidden = true;
  const requests = await guarded(loadRequests);
  const kept = requests && requests.history.enabled ? `, ${requests.data.length} requests kept` : "";
  $("status").textContent = `${catalog.counts.skills} skills${kept}`;
}

function startAutoRefresh() {
  clearInterval(state.timer);
  if ($("auto-refresh").checked) state.timer = setInterval(() => guarded(loadRequests), 5000);
}

document.addEventListener("DOMContentLoaded", () => {
  $("skill-search").addEventListener("input", renderSkills);
  $("refresh").addEventListener("click", () => guarded(loadRequests));
  $("auto-refresh").addEventListener("change", startAutoRefresh);
  $("detail-close").addEventListener("click", () => { $("detail").hidden = true; state.activeId = null; });
  $("auth-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const key = $("auth-key").value.trim();
    if (!key) return;
    sessionStorage.setItem(KEY_STORE, key);
    $("auth-key").value = "";
    loadAll();
  });
  $("try-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const text = $("try-text").value.trim();
    if (!text) return;
    $("try-button").disabled = true;
    try { await guarded(() => tryRoute(text)); } finally { $("try-button").disabled = false; }
  });
  loadAll();
  startAutoRefresh();
});
