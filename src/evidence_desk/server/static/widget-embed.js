// The reader widget's embed script, served at /widget.js. A publisher includes it once:
//   <script src="https://desk.example/widget.js" data-evidence-desk async></script>
// It puts an iframe of the desk's /widget right after that tag. The desk's origin comes
// from the script's own address. It adds no inline markup or style attribute, so the page
// needs no CSP exception beyond allowing this script (script-src) and the frame (frame-src).
(() => {
  const script =
    document.currentScript || document.querySelector("script[data-evidence-desk]:not([data-mounted])");
  if (!script || script.dataset.mounted) return;
  script.dataset.mounted = "yes";
  const origin = new URL(script.src, document.baseURI).origin;
  const frame = document.createElement("iframe");
  frame.src = `${origin}/widget`;
  frame.title = script.dataset.title || "Ask the archive (Evidence Desk)";
  frame.width = "100%";
  frame.height = script.dataset.height || "420";
  frame.loading = "lazy";
  frame.referrerPolicy = "no-referrer";
  // allow-same-origin: the frame's requests stay same-origin to the desk (its token check);
  // allow-popups*: a source link (target=_blank) opens as an ordinary tab.
  frame.setAttribute(
    "sandbox",
    "allow-scripts allow-forms allow-same-origin allow-popups allow-popups-to-escape-sandbox",
  );
  frame.style.border = "0"; // CSSOM, not a style attribute: allowed under style-src
  frame.style.maxWidth = "100%";
  script.after(frame);
  // The frame reports its content's height; only messages from this frame count.
  window.addEventListener("message", (event) => {
    if (event.source !== frame.contentWindow || event.origin !== origin) return;
    const data = event.data;
    if (!data || data.type !== "evidence-desk:height") return;
    const height = Number(data.height);
    if (Number.isFinite(height)) frame.height = String(Math.min(Math.max(Math.ceil(height), 160), 2400));
  });
})();
