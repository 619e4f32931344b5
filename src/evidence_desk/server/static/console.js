// The live console ("How this answer was made"): follow a run's server-sent events, stage by
// stage; once the run ends, fold it and show the answer. A reload or a dropped connection
// replays every stored event.
const consoleEl = document.getElementById("console");

// As the page renders it: the latency, and model calls and tokens only when a model spent
// tokens (the offline engine spends none).
function statsText(data) {
  const tokens = (data.input_tokens || 0) + (data.output_tokens || 0);
  const ms = typeof data.latency_ms === "number" ? data.latency_ms.toFixed(1) : "?";
  const calls = data.calls || 0;
  if (!calls || !tokens) return `${ms} ms`;
  return `${ms} ms · ${calls} ${calls === 1 ? "model call" : "model calls"} · ${tokens} tokens`;
}

function stageRow(list, stage) {
  let row = list.querySelector(`[data-stage="${CSS.escape(stage)}"]`);
  if (!row) {
    row = document.createElement("li");
    row.className = "stage running";
    row.dataset.stage = stage;
    const name = document.createElement("span");
    name.className = "name";
    name.textContent = stage;
    const stats = document.createElement("span");
    stats.className = "stats";
    stats.textContent = "running…";
    row.append(name, stats);
    list.append(row);
  }
  return row;
}

// The page to read the finished run from: the console's `data-page` (a lesson's page), else
// the run's own page.
async function showAnswer(runId) {
  const url = consoleEl.dataset.page || `/runs/${encodeURIComponent(runId)}`;
  const response = await fetch(url, { headers: { accept: "text/html" } });
  if (!response.ok) return;
  const doc = new DOMParser().parseFromString(await response.text(), "text/html");
  const fresh = doc.getElementById("answer-slot");
  const slot = document.getElementById("answer-slot");
  if (fresh && slot) slot.replaceChildren(...fresh.childNodes);
  const state = doc.getElementById("run-state");
  const mine = document.getElementById("run-state");
  if (state && mine) mine.replaceWith(state);
  document.getElementById("live-note")?.remove();
}

function follow() {
  if (!consoleEl) return;
  const runId = consoleEl.dataset.run;
  const list = document.getElementById("stages");
  const live = consoleEl.dataset.live === "yes";
  if (!live) return;
  const source = new EventSource(`/runs/${encodeURIComponent(runId)}/events`);
  source.addEventListener("stage_started", (e) => {
    const data = JSON.parse(e.data);
    const row = stageRow(list, data.stage);
    row.classList.add("running");
    consoleEl.dataset.after = String(data.seq);
  });
  source.addEventListener("stage_ended", (e) => {
    const data = JSON.parse(e.data);
    const row = stageRow(list, data.stage);
    row.classList.remove("running");
    row.classList.add("done");
    row.querySelector(".stats").textContent = statsText(data);
    consoleEl.dataset.after = String(data.seq);
  });
  source.addEventListener("end", () => {
    source.close();
    consoleEl.dataset.live = "no";
    consoleEl.open = false; // folded once the run is done, as the page renders it then
    showAnswer(runId).catch(() => {}); // the server gone: the page stays as it is
  });
}

follow();
