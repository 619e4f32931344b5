// The reader widget's frame: ask through the widget's JSON API with the token this page
// holds, follow the run, and show only what the API returns. Everything is written with
// textContent: an answer, its sources and their titles are data, never markup.
const form = document.querySelector("form.w-ask");
const result = document.getElementById("w-result");
const token = form?.dataset.widgetToken || "";
const FAST_MS = 500;
const SLOW_MS = 3000;
const WORKING_LIMIT_MS = 5 * 60 * 1000;
const HELD_LIMIT_MS = 10 * 60 * 1000;
const UNREACHABLE = "The widget could not reach the desk. Please try again later.";
let following = 0; // a new question stops following the previous one

const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = text;
  return node;
}

function safeHref(url) {
  if (!url) return null;
  try {
    const parsed = new URL(url);
    return parsed.protocol === "http:" || parsed.protocol === "https:" ? parsed.href : null;
  } catch {
    return null;
  }
}

function sourceItem(source) {
  const item = el("li");
  const label = `[${source.id}] ${source.title}`;
  const href = safeHref(source.url);
  if (href) {
    const link = el("a", "", label);
    link.href = href;
    link.target = "_blank";
    link.rel = "noopener noreferrer";
    item.append(link);
  } else {
    item.append(label);
  }
  const meta = [source.date, source.publisher].filter(Boolean).join(" · ");
  if (meta) item.append(" ", el("span", "w-meta", meta));
  return item;
}

function render(run) {
  const section = el("section", `w-run w-${run.status}`);
  section.dataset.run = run.run_id;
  section.dataset.status = run.status;
  section.append(el("h2", "w-question", run.question));
  if (run.message) section.append(el("p", "w-notice", run.message));
  if (run.coverage_note) section.append(el("p", "w-note", run.coverage_note));
  if (run.status === "published") {
    const answer = el("div", "w-answer");
    run.sentences.forEach((sentence, k) => {
      const line = el("p");
      for (const [kind, value] of sentence) {
        line.append(kind === "cite" ? el("span", "w-cite", `[${value}]`) : value);
      }
      if ((run.tiers || [])[k] === "paraphrase") {
        const mark = el("span", "w-tier", "paraphrase");
        mark.title =
          (run.spans_by || [])[k] === "answerer"
            ? "The source's meaning in other words, resting on words the answer's writer cited and the desk found exactly in the source"
            : "The source's meaning in other words, resting on words it quotes exactly";
        line.append(" ", mark);
      }
      answer.append(line);
    });
    section.append(answer);
    if (run.sources.length) {
      const list = el("ol", "w-sources");
      list.append(...run.sources.map(sourceItem));
      section.append(el("h3", "w-sources-h", "Sources"), list);
    }
  }
  result.replaceChildren(section);
}

function notice(text, paused = false) {
  result.replaceChildren(el("p", paused ? "w-notice w-paused" : "w-notice", text));
  if (paused) form?.remove(); // the kill switch: no more asking from this page
}

async function call(url, options = {}) {
  const headers = { accept: "application/json", "x-widget-token": token, ...options.headers };
  try {
    const response = await fetch(url, {
      ...options,
      headers,
      credentials: "omit",
      cache: "no-store",
    });
    const body = await response.json().catch(() => null);
    return { response, body };
  } catch {
    return null;
  }
}

// Poll every FAST_MS while the run works; every SLOW_MS while it is held (an editor's
// approval appears), for at most HELD_LIMIT_MS; stop on any other status.
async function follow(runId, turn) {
  const started = Date.now();
  let heldSince = null;
  let shown = "";
  while (turn === following) {
    const got = await call(`/widget/api/runs/${encodeURIComponent(runId)}`);
    if (turn !== following) return;
    if (got?.body?.paused) return notice(got.body.error, true);
    if (got && !got.response.ok) return notice(got.body?.error || UNREACHABLE);
    if (got) {
      const fresh = JSON.stringify(got.body);
      if (fresh !== shown) render(got.body); // unchanged: leave it, so nothing re-announces
      shown = fresh;
      const status = got.body.status;
      if (status !== "working" && status !== "held") return;
      if (status === "held") {
        heldSince ??= Date.now();
        if (Date.now() - heldSince > HELD_LIMIT_MS) return;
        await sleep(SLOW_MS);
        continue;
      }
    }
    if (Date.now() - started > WORKING_LIMIT_MS) {
      return notice(got ? "This is taking longer than usual. Please try again later." : UNREACHABLE);
    }
    await sleep(got ? FAST_MS : SLOW_MS);
  }
}

async function ask(event) {
  event.preventDefault();
  const field = form.elements.namedItem("question");
  const question = field.value.trim();
  if (!question) return;
  const turn = ++following;
  const button = form.querySelector("button[type=submit]");
  button.disabled = true;
  button.textContent = "Asking…";
  const got = await call("/widget/api/ask", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ question }),
  });
  button.disabled = false;
  button.textContent = "Ask";
  if (!got) return notice(UNREACHABLE);
  if (got.body?.paused) return notice(got.body.error, true);
  if (got.response.status !== 202) return notice(got.body?.error || UNREACHABLE);
  notice("The desk is checking its sources.");
  follow(got.body.run_id, turn);
}

// Tell the embedding page how tall the frame's content is (`widget.js` sizes the iframe).
function reportHeight() {
  if (window.parent === window) return;
  const main = document.getElementById("w-main");
  const height = Math.ceil(main ? main.getBoundingClientRect().bottom : document.body.scrollHeight);
  window.parent.postMessage({ type: "evidence-desk:height", height }, "*");
}

if (form && token) {
  form.addEventListener("submit", ask);
  const area = form.elements.namedItem("question");
  area.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      form.requestSubmit();
    }
  });
  // A run the form-post page rendered still working or held: follow it from here.
  const rendered = result?.querySelector("section.w-run[data-run]");
  if (rendered && ["working", "held"].includes(rendered.dataset.status)) {
    follow(rendered.dataset.run, ++following);
  }
}
new ResizeObserver(reportHeight).observe(document.getElementById("w-main") || document.body);
reportHeight();
