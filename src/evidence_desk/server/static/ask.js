// The ask form: Ctrl+Enter (or Cmd+Enter) asks; the button says it is working.
for (const form of document.querySelectorAll("form.ask")) {
  const area = form.querySelector("textarea");
  area?.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      form.requestSubmit();
    }
  });
  form.addEventListener("submit", () => {
    const button = form.querySelector("button[type=submit]");
    if (button) {
      button.disabled = true;
      button.textContent = "Asking…";
    }
  });
}
