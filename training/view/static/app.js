// farmgames view: the page talks to the local server's JSON API only (no external resources).
"use strict";

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const state = {
  record: Number(params.get("record") || 0),
  view: params.get("view") || null,
  step: !params.has("step") ? null : params.get("step") === "last" ? Infinity : Number(params.get("step")) || 0,
  info: null,
  frame: null,
  request: 0,
  timer: null,
  busy: false,
};

function viewName(v) {
  if (v === "all" || v === null) return "everything";
  const seat = state.info && state.info.seats[v];
  return seat ? `${seat}'s view` : `player ${v}'s view`;
}

async function api(path, options) {
  const res = await fetch(path, options);
  const kind = res.headers.get("Content-Type") || "";
  const body = kind.startsWith("application/json") ? await res.json() : null;
  if (!res.ok) throw new Error((body && body.error) || `${res.status} ${res.statusText}`);
  return body;
}

function query(extra) {
  const q = new URLSearchParams({ record: String(state.record), view: String(state.view), ...extra });
  return q.toString();
}

function say(text, kind) {
  const b = $("banner");
  b.textContent = text || "";
  b.className = kind || "";
}

async function loadInfo() {
  const info = await api(`/api/info?record=${state.record}`);
  state.info = info;
  $("title").textContent = info.title;
  const seats = info.seats.join(", ");
  $("subtitle").textContent = `${info.num_players} players, seed ${info.seed} - ${seats}`;
  document.title = `${info.title} - farmgames view`;
  const views = info.views.map(String);
  if (state.view === null || !views.includes(String(state.view))) state.view = views[0];
  const sel = $("view-select");
  sel.innerHTML = "";
  for (const v of info.views) {
    const o = document.createElement("option");
    o.value = String(v);
    o.textContent = viewName(v);
    sel.appendChild(o);
  }
  sel.value = String(state.view);
  const rs = $("record-select");
  if (info.records.length > 1) {
    $("record-box").hidden = false;
    rs.innerHTML = "";
    info.records.forEach((label, i) => {
      const o = document.createElement("option");
      o.value = String(i);
      o.textContent = label;
      rs.appendChild(o);
    });
    rs.value = String(state.record);
  }
  $("slider").max = String(info.steps);
  $("step-input").max = String(info.steps);
  $("step-count").textContent = `/ ${info.steps}`;
  $("download").href = `/api/record?record=${state.record}`;
  $("save").hidden = !(info.mode === "play" && info.save_path);
  $("autoplay").hidden = info.mode === "play";
  if (state.step === null) state.step = info.mode === "play" ? info.steps : 0;
  state.step = Math.max(0, Math.min(info.steps, state.step));
  document.body.dataset.mode = info.mode;
  return info;
}

function decisionText(d, pending) {
  if (!d) return pending ? "" : "-";
  const who = d.player || `player ${d.seat}`;
  if (d.hidden) return `${who}: ${d.text || "decides (hidden from this view)"}`;
  if (!d.text) return `${who} to decide`;
  return `${who}: ${d.text}`;
}

function showAlternatives(frame) {
  const list = $("alternatives");
  list.innerHTML = "";
  const d = frame.next;
  const info = state.info;
  const mine = frame.live && d && info.mode === "play" && d.seat === info.human && !frame.terminal;
  if (!d || !d.alternatives) {
    if (d && d.hidden) {
      const li = document.createElement("li");
      li.className = "muted";
      li.textContent = "the alternatives of another seat are not shown in this view";
      list.appendChild(li);
    }
    return;
  }
  for (const alt of d.alternatives) {
    const li = document.createElement("li");
    li.className = "alt" + (alt.chosen ? " chosen" : "");
    if (mine) {
      const b = document.createElement("button");
      b.textContent = alt.text;
      b.dataset.action = String(alt.action);
      b.addEventListener("click", () => act(alt.action));
      li.appendChild(b);
    } else {
      li.textContent = (alt.chosen ? "\u2714 " : "") + alt.text;
    }
    list.appendChild(li);
  }
}

async function loadFrame() {
  const id = ++state.request;
  const step = state.step;
  const frame = await api(`/api/frame?${query({ step: String(step) })}`);
  if (id !== state.request) return;
  state.frame = frame;
  state.step = frame.step;
  $("slider").value = String(frame.step);
  $("step-input").value = String(frame.step);
  $("next-text").textContent = frame.next ? decisionText(frame.next, frame.live) : (frame.terminal ? "game over" : "-");
  $("last-text").textContent = decisionText(frame.last, false);
  showAlternatives(frame);
  $("table-text").textContent = frame.table;
  const obs = Object.entries(frame.observations).map(([seat, text]) =>
    Object.keys(frame.observations).length > 1 ? `=== player ${seat} ===\n${text}` : text);
  $("obs-text").textContent = obs.join("\n\n");
  const img = $("picture");
  if (frame.picture) {
    img.hidden = false;
    $("no-picture").hidden = true;
    img.dataset.loaded = "0";
    img.dataset.step = String(frame.step);
    img.dataset.view = String(state.view);
    img.src = `/api/picture?${query({ step: String(frame.step), n: String(frame.steps) })}`;
  } else {
    img.hidden = true;
    img.removeAttribute("src");
    $("no-picture").hidden = false;
  }
  document.body.dataset.step = String(frame.step);
  document.body.dataset.view = String(state.view);
  markLog();
  banner(frame);
  document.body.dataset.ready = String(id);
}

function banner(frame) {
  const info = state.info;
  if (frame.terminal) {
    const scores = (frame.scores || []).map((s, p) => `player ${p}: ${s}`).join(", ");
    const winners = (frame.winners || []).map((w) => `player ${w}`).join(", ");
    const saved = info.saved ? ` - record saved to ${info.saved}` : "";
    say(`game over - ${scores} - winner(s): ${winners}${saved}`, "over");
  } else if (info.mode === "play" && frame.live) {
    if (frame.acting === info.human) say("your turn: choose one of your legal actions below", "turn");
    else say(`player ${frame.acting} is thinking...`, "");
  } else if (info.mode === "play") {
    say("you are looking at an earlier step; press End to return to the game", "");
  } else {
    say("");
  }
}

async function loadLog() {
  const entries = await api(`/api/log?${query({})}`);
  const log = $("log");
  log.innerHTML = "";
  for (const e of entries) {
    const li = document.createElement("li");
    li.dataset.step = String(e.step);
    li.textContent = `${e.step}. player ${e.seat}: ${e.text}`;
    li.addEventListener("click", () => go(e.step + 1));
    log.appendChild(li);
  }
  markLog();
}

function markLog() {
  for (const li of $("log").children) li.classList.toggle("current", Number(li.dataset.step) === state.step - 1);
}

async function refresh(all) {
  try {
    if (all) await loadInfo();
    await loadFrame();
    if (all) await loadLog();
  } catch (err) {
    say(String(err.message || err), "error");
  }
}

function go(step) {
  if (!state.info) return;
  state.step = Math.max(0, Math.min(state.info.steps, step));
  refresh(false);
}

async function act(action) {
  if (state.busy) return;
  state.busy = true;
  for (const b of document.querySelectorAll("#alternatives button")) b.disabled = true;
  try {
    await api(`/api/act`, { method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ action }) });
    state.step = null;
    await refresh(true);
  } catch (err) {
    say(String(err.message || err), "error");
  } finally {
    state.busy = false;
  }
}

function toggleAutoplay() {
  if (state.timer) {
    clearInterval(state.timer);
    state.timer = null;
    $("autoplay").textContent = "\u25B6 play";
    return;
  }
  $("autoplay").textContent = "|| pause";
  state.timer = setInterval(() => {
    if (!state.info || state.step >= state.info.steps) return toggleAutoplay();
    go(state.step + 1);
  }, 700);
}

function setup() {
  $("first").addEventListener("click", () => go(0));
  $("prev").addEventListener("click", () => go(state.step - 1));
  $("next").addEventListener("click", () => go(state.step + 1));
  $("last").addEventListener("click", () => go(state.info ? state.info.steps : 0));
  $("autoplay").addEventListener("click", toggleAutoplay);
  $("slider").addEventListener("input", (e) => go(Number(e.target.value)));
  $("step-input").addEventListener("change", (e) => go(Number(e.target.value)));
  $("view-select").addEventListener("change", (e) => { state.view = e.target.value; refresh(true); });
  $("record-select").addEventListener("change", (e) => {
    state.record = Number(e.target.value);
    state.step = null;
    state.view = null;
    refresh(true);
  });
  $("save").addEventListener("click", async () => {
    try {
      const r = await api("/api/save", { method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" });
      say(`record saved to ${r.saved}`, "over");
    } catch (err) {
      say(String(err.message || err), "error");
    }
  });
  for (const tab of document.querySelectorAll(".tab")) {
    tab.addEventListener("click", () => {
      for (const t of document.querySelectorAll(".tab")) t.classList.toggle("active", t === tab);
      for (const p of document.querySelectorAll(".pane")) p.hidden = p.id !== tab.dataset.pane;
    });
  }
  const img = $("picture");
  img.addEventListener("load", () => { img.dataset.loaded = "1"; });
  img.addEventListener("error", () => { img.dataset.loaded = "error"; });
  document.addEventListener("keydown", (e) => {
    if (e.target.tagName === "INPUT" || e.target.tagName === "SELECT") return;
    if (e.key === "ArrowRight") go(state.step + 1);
    else if (e.key === "ArrowLeft") go(state.step - 1);
    else if (e.key === "Home") go(0);
    else if (e.key === "End") go(state.info ? state.info.steps : 0);
    else if (e.key === " " && state.info && state.info.mode === "record") { e.preventDefault(); toggleAutoplay(); }
    else return;
    e.preventDefault();
  });
  refresh(true);
}

setup();
