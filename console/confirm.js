// An in-page question before a step that loses something (never window.confirm): it says what
// will be lost, and the step runs only after a second, explicit click. Undo can still take it back.
import { button, el, replace } from "./dom.js";

/**
 * Shows the question in `container` (replacing its children) and focuses the confirming button.
 * `lost`: lines naming what goes; `onCancel` runs after the question is closed.
 */
export function confirmStep(container, { title, lost = [], confirmLabel, onConfirm, onCancel }) {
  const close = () => replace(container);
  const shown = lost.slice(0, 12);
  replace(container, el("div", { class: "confirm", role: "group", "aria-label": title },
    el("p", { class: "confirm-title", text: title }),
    shown.length ? el("ul", {}, ...shown.map((line) => el("li", { text: line }))) : null,
    lost.length > shown.length ? el("p", { class: "hint", text: `… and ${lost.length - shown.length} more.` }) : null,
    el("div", { class: "actions" },
      button(confirmLabel, () => {
        close();
        onConfirm();
      }, { class: "danger" }),
      button("Cancel", () => {
        close();
        onCancel?.();
      }))));
  container.querySelector("button.danger").focus();
}
