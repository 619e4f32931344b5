// The standards desk's queue by keyboard: `j` moves focus to the next held run, `k` to the
// previous one, in document order. Keys typed into a field, or with a modifier, are left alone.

const ITEMS = "[data-queue-item]";

function typing(target) {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName);
}

function move(step) {
  const items = Array.from(document.querySelectorAll(ITEMS));
  if (items.length === 0) return false;
  const at = items.indexOf(document.activeElement);
  let next;
  if (at < 0) next = step > 0 ? 0 : items.length - 1;
  else next = Math.min(Math.max(at + step, 0), items.length - 1);
  items[next].focus();
  items[next].scrollIntoView({ block: "nearest" });
  return true;
}

document.addEventListener("keydown", (event) => {
  if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return;
  if (event.key !== "j" && event.key !== "k") return;
  if (typing(event.target)) return;
  if (move(event.key === "j" ? 1 : -1)) event.preventDefault();
});
