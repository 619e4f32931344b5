// The archive's preparation on every page (`_preparing.html`): every few seconds the stage,
// the bar and the time left are read again from /api/preparing. Once the archive is ready a
// page reached by GET reloads (`data-reload="yes"`); one that keeps a refused question in its
// form says it can be asked now. A request that fails (the server stopped, a dropped
// connection) throws nothing: the next one, later each time, may answer. (Chromium itself
// still logs each refused connection to the console; no script can silence that.)
const EVERY_MS = 4000;
const AT_MOST_MS = 60000;
let wait = EVERY_MS;

const section = document.getElementById("preparing");
const stage = document.getElementById("preparing-stage");
const bar = document.getElementById("preparing-bar");
const status = document.getElementById("preparing-status");

async function read() {
  try {
    const response = await fetch("/api/preparing", {
      headers: { accept: "application/json" },
      cache: "no-store",
    });
    if (!response.ok) return null;
    return await response.json();
  } catch {
    return null; // not answering just now: try again later
  }
}

function left(eta) {
  if (eta === null || eta === undefined) return "time left not known yet";
  if (eta < 45) return "less than a minute left";
  if (eta < 90) return "about a minute left";
  return `about ${Math.round(eta / 60)} minutes left`;
}

function show(body) {
  if (stage) stage.textContent = body.stage;
  if (bar) {
    if (body.total > 0) {
      bar.max = body.total;
      bar.value = body.done;
      bar.textContent = `${body.done} of ${body.total} ${body.unit}`;
    } else {
      bar.removeAttribute("value");
    }
  }
  if (status) {
    const counted = body.total > 0
      ? `${body.done.toLocaleString("en")} of ${body.total.toLocaleString("en")} ${body.unit}, `
      : "";
    status.textContent = counted + left(body.eta_seconds);
  }
}

function ready() {
  if (section?.dataset.reload === "yes") {
    window.location.reload();
    return;
  }
  if (stage) stage.textContent = "ready";
  if (bar) {
    bar.max = 1;
    bar.value = 1;
  }
  if (status) status.textContent = "The archive is ready: ask again.";
}

async function poll() {
  const body = await read();
  if (body?.ready) return ready();
  if (body?.stage === "failed") {
    if (status) status.textContent = `The archive could not be prepared. ${body.error ?? ""}`;
    return;
  }
  if (body) show(body);
  wait = body ? EVERY_MS : Math.min(wait * 2, AT_MOST_MS);
  window.setTimeout(poll, wait);
}

if (section && bar) window.setTimeout(poll, EVERY_MS);
