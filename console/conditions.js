// The Conditions view: the conditions in priority order (the first true one wins), each with
// name, rule and colour; filtered by name, rule or colour; reordered by dragging, with the
// Up/Down buttons or by typing a position. A rule is checked as it is typed, by the server's own
// parser for the chosen namespace (checks.js), and can be built field by field
// (condition-builder.js); deleting a
// condition first says which values go with it. The list is drawn when the view is shown.
import { button, el, field, replace, select, setIssue } from "./dom.js";
import * as session from "./session.js";
import { jsonInput } from "./values.js";
import { confirmStep } from "./confirm.js";
import { checkAsTyped as askServer } from "./checks.js";
import { conditionBuilder, ruleHelp } from "./condition-builder.js";
import { conditionUsers, removeCondition, renameCondition, tagColors } from "./template.js";

const colorOptions = [["", "No colour"], ...tagColors.map((color) => [color, color.replace("_", " ").toLowerCase()])];
let list;
let root;
let filter;
let filterStatus;
let focusAfterRender = null;
let dragged = null;
/** The draft changed while the view was hidden: it is drawn when shown. */
let stale = true;

/** Checks `input`'s rule as typed (a template holding only that condition) and shows the problem beside it. */
function checkAsTyped(input, fieldNode) {
  const check = askServer(() => input.value.trim() ? { conditions: [{ name: "rule", expression: input.value }] } : null,
    (problem) => setIssue(fieldNode, problem));
  input.addEventListener("input", check);
  return check;
}

/** A clause from the builder, joined to what the rule already says. */
function appendClause(input, clause, joiner) {
  const text = input.value.trim();
  input.value = text ? `${text} ${joiner} ${clause}` : clause;
  input.dispatchEvent(new Event("input"));
  input.focus();
}

let addForm;
let helpLine;

export function mount(container) {
  root = container;
  stale = true;
  addForm = el("form", { class: "toolbar add-condition" });
  helpLine = el("p", { class: "hint" });
  list = el("ol", { class: "conditions" });
  filter = el("input", { type: "search", autocomplete: "off", on: { input: applyFilter } });
  filterStatus = el("p", { class: "hint", role: "status" });
  replace(container,
    el("h2", { tabIndex: -1, text: "Conditions" }),
    el("p", { class: "hint", text: "Order is priority: when several conditions are true, the value of the one highest in this list is served." }),
    helpLine,
    field("Filter conditions", filter, { hint: "Matches names, rules and colours." }),
    filterStatus,
    list,
    addForm);
  for (const event of ["replaced", "structure"]) {
    session.events.addEventListener(event, () => {
      stale = true;
      if (!root.hidden) render();
    });
  }
  session.events.addEventListener("scope", mountAddForm);
}

/** The view is shown: draws the list if the draft changed meanwhile. */
export function shown() {
  if (stale) render();
}

/** Hides the conditions whose name, rule and colour do not contain the filter's text. */
function applyFilter() {
  const needle = filter.value.trim().toLowerCase();
  const rows = [...list.querySelectorAll(":scope > li.condition")];
  let matches = 0;
  for (const row of rows) {
    const match = !needle || row.dataset.search.includes(needle);
    row.hidden = !match;
    if (match) matches += 1;
  }
  filterStatus.textContent = needle ? `${matches} of ${rows.length} conditions match “${filter.value.trim()}”.` : "";
}

/** The form for a new condition, with the example and builder of the chosen namespace. */
function mountAddForm() {
  const { namespace } = session.scope();
  const help = ruleHelp(namespace);
  helpLine.textContent = help.help;
  const name = el("input", { type: "text", autocomplete: "off", spellcheck: false });
  const expression = el("input", { type: "text", autocomplete: "off", spellcheck: false });
  const color = select(colorOptions, "");
  const nameField = field("New condition name", name);
  const expressionField = field("Rule", expression, { hint: help.example, wide: true });
  const check = checkAsTyped(expression, expressionField);
  const add = (event) => {
    event.preventDefault();
    const draft = session.draft();
    const text = name.value.trim();
    if (!text) return setIssue(nameField, "Enter a name.");
    if (draft.conditions.some((condition) => condition.name === text)) {
      return setIssue(nameField, `A condition '${text}' already exists.`);
    }
    if (!expression.value.trim()) return setIssue(expressionField, "Enter a rule.");
    setIssue(nameField, "");
    const condition = { name: text, expression: expression.value.trim() };
    if (color.value) condition.tagColor = color.value;
    draft.conditions.push(condition);
    name.value = "";
    expression.value = "";
    color.value = "";
    check();
    session.restructured(`new condition ${text}`);
  };
  replace(addForm, nameField, expressionField, field("Colour", color),
    el("button", { type: "submit", text: "Add condition" }),
    conditionBuilder(namespace, (clause, joiner) => appendClause(expression, clause, joiner)));
  addForm.onsubmit = add;
}

export function render() {
  const draft = session.draft();
  if (!draft || !list) return;
  stale = false;
  const users = conditionUsers(draft);
  replace(list, ...draft.conditions.map((condition, index) => row(condition, index, users.get(condition.name) ?? [])));
  if (draft.conditions.length === 0) list.append(el("li", { class: "hint", text: "No conditions yet." }));
  applyFilter();
  if (focusAfterRender) {
    const { index, role } = focusAfterRender;
    focusAfterRender = null;
    const target = list.children[index]?.querySelector(`[data-role="${role}"]`);
    (target && !target.disabled ? target : list.children[index]?.querySelector("input"))?.focus();
  }
}

function row(condition, index, users) {
  const draft = session.draft();
  const path = `conditions[${index}]`;
  const count = draft.conditions.length;
  const name = el("input", { type: "text", value: condition.name, spellcheck: false, autocomplete: "off" });
  const nameField = field("Name", name);
  name.addEventListener("change", () => {
    const text = name.value.trim();
    if (text === condition.name) return;
    if (!text) return setIssue(nameField, "A name must not be empty.");
    if (draft.conditions.some((other) => other.name === text)) return setIssue(nameField, `A condition '${text}' already exists.`);
    const old = condition.name;
    renameCondition(draft, old, text);
    session.restructured(`rename condition ${old} to ${text}`);
  });
  session.registerField(`${path}.name`, nameField);
  session.registerField(path, nameField);

  let rule;
  if (condition.expression !== undefined || condition.condition === undefined) {
    const expression = el("input", { type: "text", value: condition.expression ?? "", spellcheck: false, autocomplete: "off" });
    expression.addEventListener("input", () => {
      condition.expression = expression.value;
      session.edited(`rule of ${condition.name}`);
    });
    rule = field("Rule", expression, { wide: true });
    checkAsTyped(expression, rule);
    session.registerField(`${path}.expression`, rule);
    // The builder is made when asked for: fifty conditions need not carry fifty of them.
    const builder = el("details", { class: "builder-toggle" }, el("summary", { text: "Build a rule…" }));
    builder.addEventListener("toggle", () => {
      if (builder.open && builder.children.length === 1) {
        builder.append(conditionBuilder(session.scope().namespace, (clause, joiner) => appendClause(expression, clause, joiner)));
      }
    });
    rule.append(builder);
  } else {
    // A server template's structured condition: edited as JSON, kept as written otherwise.
    rule = jsonInput(JSON.stringify(condition.condition, null, 2), `${path}.condition`, "Structured rule (JSON)", (text) => {
      try {
        condition.condition = JSON.parse(text);
        session.edited(`rule of ${condition.name}`);
      } catch {
        // Shown beside the field; the draft keeps the last valid rule.
      }
    });
  }

  const color = select(colorOptions, condition.tagColor ?? "", {
    on: {
      change: (event) => {
        if (event.target.value) condition.tagColor = event.target.value;
        else delete condition.tagColor;
        focusAfterRender = { index, role: "color" };
        session.restructured(`colour of ${condition.name}`);
      },
    },
    dataset: { role: "color" },
  });
  const colorField = field("Colour", color);
  session.registerField(`${path}.tagColor`, colorField);
  const chip = el("span", { class: `chip color-${condition.tagColor || "NONE"}`, text: `${index + 1}`, "aria-hidden": "true" });
  const used = users.length;
  const confirmArea = el("div", { class: "confirm-area" });
  const values = `${used} conditional value${used === 1 ? "" : "s"}`;
  // Straight to a place in the order: fifty conditions need not take forty-nine clicks.
  const position = el("input", { type: "number", min: 1, max: count, value: String(index + 1), inputMode: "numeric", dataset: { role: "position" } });
  const positionField = field("Position", position, { hint: `1 to ${count}; 1 wins over every other` });
  position.addEventListener("change", () => {
    const to = Number(position.value) - 1;
    if (!Number.isInteger(to) || to < 0 || to >= count) {
      return setIssue(positionField, `A position from 1 to ${count}.`);
    }
    if (to !== index) move(to, "position");
    return undefined;
  });

  const move = (to, role) => {
    const [moved] = draft.conditions.splice(index, 1);
    draft.conditions.splice(to, 0, moved);
    focusAfterRender = { index: to, role };
    session.restructured(`move ${condition.name}`);
  };
  // Only the handle drags, so selecting text in the fields still works.
  const handle = el("span", {
    class: "handle", draggable: true, "aria-hidden": "true", title: "Drag to reorder", text: "⠿",
    on: {
      dragstart: (event) => {
        dragged = index;
        event.dataTransfer.effectAllowed = "move";
        event.dataTransfer.setData("text/plain", condition.name);
        event.dataTransfer.setDragImage(item, 0, 0);
        item.classList.add("dragging");
      },
      dragend: () => item.classList.remove("dragging"),
    },
  });
  const item = el("li", {
    class: "condition", "aria-label": `Condition ${index + 1} of ${count}: ${condition.name}`,
    // The colour both as written (DEEP_ORANGE) and as the colour menu says it (deep orange).
    dataset: { search: [condition.name, condition.expression ?? "", condition.tagColor ?? "", (condition.tagColor ?? "").replace("_", " ")].join("\n").toLowerCase() },
    on: {
      dragover: (event) => {
        if (dragged === null) return;
        event.preventDefault();
        item.classList.add("drop-target");
      },
      dragleave: () => item.classList.remove("drop-target"),
      drop: (event) => {
        event.preventDefault();
        const from = dragged;
        dragged = null;
        if (from === null || from === index) return render();
        const [moved] = draft.conditions.splice(from, 1);
        draft.conditions.splice(index, 0, moved);
        focusAfterRender = { index, role: "up" };
        session.restructured(`move ${moved.name}`);
      },
    },
  },
  handle, chip,
  el("div", { class: "condition-fields" }, el("div", { class: "row" }, nameField, colorField, positionField), rule,
    used ? button(`Show the ${used} parameter${used === 1 ? "" : "s"} using ${condition.name}`, () => session.showParametersUsing(condition.name),
      { class: "link" })
      : el("p", { class: "hint", text: "Used by no parameter." }),
    confirmArea),
  el("div", { class: "actions" },
    button("Up", () => move(index - 1, "up"), { disabled: index === 0, dataset: { role: "up" }, "aria-label": `Move ${condition.name} up` }),
    button("Down", () => move(index + 1, "down"), { disabled: index === count - 1, dataset: { role: "down" }, "aria-label": `Move ${condition.name} down` }),
    button(used ? `Delete ${condition.name} and its ${values}` : `Delete ${condition.name}`, () => {
      const remove = () => {
        removeCondition(draft, index);
        focusAfterRender = { index: Math.max(0, index - 1), role: "up" };
        session.restructured(`delete condition ${condition.name}`);
      };
      if (!used) return remove();
      return confirmStep(confirmArea, {
        title: `Delete condition ${condition.name} and its ${values}?`,
        lost: users.map((key) => `the value of ${key} when ${condition.name} is true`),
        confirmLabel: `Delete ${condition.name} and ${used} value${used === 1 ? "" : "s"}`,
        onConfirm: remove,
      });
    }, { class: "danger" })));
  return item;
}
