// Building the page from data. Every value is written with textContent (or as a form
// control's value), never parsed as HTML; the page's policy would refuse an HTML string anyway.

/**
 * Creates an element. `props`: `class`, `text`, `on` ({event: handler}), `dataset`, form
 * properties (`value`, `checked`, `disabled`, `hidden`, `type`, `htmlFor`, `id`…), and any
 * other name as an attribute (`aria-*`, `for`, `role`…). Children are nodes or strings.
 */
export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  applyProps(node, props);
  append(node, children);
  return node;
}

const properties = new Set(["value", "checked", "disabled", "hidden", "type", "id", "name", "placeholder",
  "htmlFor", "rows", "min", "max", "required", "multiple", "accept", "draggable", "tabIndex", "selected",
  "spellcheck", "autocomplete", "open", "title"]);

function applyProps(node, props) {
  for (const [name, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false && !properties.has(name)) continue;
    if (name === "class") node.className = value;
    else if (name === "text") node.textContent = value;
    else if (name === "on") for (const [event, handler] of Object.entries(value)) node.addEventListener(event, handler);
    else if (name === "dataset") Object.assign(node.dataset, value);
    else if (properties.has(name)) node[name] = value;
    else node.setAttribute(name, value === true ? "" : String(value));
  }
}

function append(node, children) {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(typeof child === "string" ? document.createTextNode(child) : child);
  }
}

const svgNamespace = "http://www.w3.org/2000/svg";

/** Creates an SVG element; props are attributes (plus `class`, `text`). */
export function svg(tag, props = {}, ...children) {
  const node = document.createElementNS(svgNamespace, tag);
  for (const [name, value] of Object.entries(props)) {
    if (value === undefined || value === null) continue;
    if (name === "text") node.textContent = value;
    else node.setAttribute(name, String(value));
  }
  append(node, children);
  return node;
}

/** Replaces a node's children. */
export function replace(node, ...children) {
  node.replaceChildren();
  append(node, children);
}

let uniqueCounter = 0;

/** A fresh id for label/field pairs. */
export function uniqueId(prefix) {
  uniqueCounter += 1;
  return `${prefix}-${uniqueCounter}`;
}

/** A labelled form field: `<div class=field><label>…</label>control<p class=hint/issue></div>`. */
export function field(labelText, control, { hint, wide } = {}) {
  if (!control.id) control.id = uniqueId("field");
  const issue = el("p", { class: "issue", id: uniqueId("issue"), hidden: true, role: "alert" });
  const hintNode = hint ? el("p", { class: "hint", id: uniqueId("hint"), text: hint }) : null;
  const described = [hintNode && hintNode.id, issue.id].filter(Boolean).join(" ");
  control.setAttribute("aria-describedby", described);
  const wrapper = el("div", { class: wide ? "field wide" : "field" },
    el("label", { htmlFor: control.id, text: labelText }), control, hintNode, issue);
  wrapper.control = control;
  wrapper.issue = issue;
  return wrapper;
}

/** Shows (or, with an empty message, clears) the problem beside a field made by field(). */
export function setIssue(fieldNode, message) {
  fieldNode.issue.textContent = message || "";
  fieldNode.issue.hidden = !message;
  if (message) fieldNode.control.setAttribute("aria-invalid", "true");
  else fieldNode.control.removeAttribute("aria-invalid");
}

/** A `<select>` of [value, label] pairs. */
export function select(options, selected, props = {}) {
  return el("select", props, options.map(([value, label]) =>
    el("option", { value, text: label, selected: value === selected })));
}

/** A button that runs `action` on click. */
export function button(text, action, props = {}) {
  return el("button", { type: "button", text, ...props, on: { click: action } });
}

/** "3 Nov 2026, 14:05:09" in the reader's locale, or the text as given when unreadable. */
export function formatTime(timestamp) {
  const date = new Date(timestamp);
  return Number.isNaN(date.getTime()) ? String(timestamp || "") : date.toLocaleString();
}

/** Offers `text` as a file download (through a blob URL, which the policy allows). */
export function download(filename, text, type = "application/json") {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = el("a", { href: url, download: filename, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/**
 * Names each cell of `table`'s body by its column's heading (`data-label`), so that on a phone,
 * where rows stack into cards (styles.css, `table.stack`), each value says what it is. Run it
 * again after the body is drawn anew.
 */
export function labelCells(table) {
  const headings = [...table.querySelectorAll("thead th")].map((heading) => heading.textContent);
  for (const row of table.querySelectorAll("tbody tr")) {
    [...row.children].forEach((cell, index) => {
      if (headings[index] && cell.colSpan === 1) cell.dataset.label = headings[index];
    });
  }
}

/**
 * `table` in a region named `label` that scrolls sideways when the table is wider than the
 * screen; while it does, the region takes focus, so the keyboard can scroll it too. On a phone
 * the rows stack instead (labelCells).
 */
export function tableRegion(table, label) {
  table.classList.add("stack");
  labelCells(table);
  const region = el("div", { class: "table-scroll", role: "region", "aria-label": label }, table);
  const reachable = () => {
    if (region.scrollWidth > region.clientWidth) region.tabIndex = 0;
    else region.removeAttribute("tabindex");
  };
  new ResizeObserver(reachable).observe(region);
  return region;
}
