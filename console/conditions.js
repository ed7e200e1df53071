// The Conditions view: the conditions in priority order (the first true one wins), each with
// name, rule and colour; reordered by dragging or with the Up/Down buttons.
import { button, el, field, replace, select, setIssue } from "./dom.js";
import * as session from "./session.js";
import { jsonInput } from "./values.js";
import { conditionUsage, removeCondition, renameCondition, tagColors } from "./template.js";

const colorOptions = [["", "No colour"], ...tagColors.map((color) => [color, color.replace("_", " ").toLowerCase()])];
let list;
let focusAfterRender = null;
let dragged = null;

export function mount(container) {
  const name = el("input", { type: "text", autocomplete: "off", spellcheck: false });
  const expression = el("input", { type: "text", autocomplete: "off", spellcheck: false });
  const color = select(colorOptions, "");
  const nameField = field("New condition name", name);
  const expressionField = field("Rule", expression, { hint: "e.g. device.os == 'ios' && app.version >= '2.0'", wide: true });
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
    setIssue(expressionField, "");
    const condition = { name: text, expression: expression.value.trim() };
    if (color.value) condition.tagColor = color.value;
    draft.conditions.push(condition);
    name.value = "";
    expression.value = "";
    color.value = "";
    session.restructured();
  };
  list = el("ol", { class: "conditions" });
  replace(container,
    el("h2", { tabIndex: -1, text: "Conditions" }),
    el("p", { class: "hint", text: "Order is priority: when several conditions are true, the value of the one highest in this list is served." }),
    list,
    el("form", { class: "toolbar", on: { submit: add } }, nameField, expressionField, field("Colour", color),
      el("button", { type: "submit", text: "Add condition" })));
  for (const event of ["replaced", "structure"]) session.events.addEventListener(event, render);
}

export function render() {
  const draft = session.draft();
  if (!draft || !list) return;
  replace(list, ...draft.conditions.map((condition, index) => row(condition, index)));
  if (draft.conditions.length === 0) list.append(el("li", { class: "hint", text: "No conditions yet." }));
  if (focusAfterRender) {
    const { index, role } = focusAfterRender;
    focusAfterRender = null;
    const target = list.children[index]?.querySelector(`[data-role="${role}"]`);
    (target && !target.disabled ? target : list.children[index]?.querySelector("input"))?.focus();
  }
}

function row(condition, index) {
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
    renameCondition(draft, condition.name, text);
    session.restructured();
  });
  session.registerField(`${path}.name`, nameField);
  session.registerField(path, nameField);

  let rule;
  if (condition.expression !== undefined || condition.condition === undefined) {
    const expression = el("input", { type: "text", value: condition.expression ?? "", spellcheck: false, autocomplete: "off" });
    expression.addEventListener("input", () => {
      condition.expression = expression.value;
      session.edited();
    });
    rule = field("Rule", expression, { wide: true });
    session.registerField(`${path}.expression`, rule);
  } else {
    // A server template's structured condition: edited as JSON, kept as written otherwise.
    rule = jsonInput(JSON.stringify(condition.condition, null, 2), `${path}.condition`, "Structured rule (JSON)", (text) => {
      try {
        condition.condition = JSON.parse(text);
        session.edited();
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
        chip.className = `chip color-${condition.tagColor || "NONE"}`;
        session.edited();
      },
    },
  });
  const colorField = field("Colour", color);
  session.registerField(`${path}.tagColor`, colorField);
  const chip = el("span", { class: `chip color-${condition.tagColor || "NONE"}`, text: `${index + 1}`, "aria-hidden": "true" });
  const used = conditionUsage(draft, condition.name);

  const move = (to, role) => {
    const [moved] = draft.conditions.splice(index, 1);
    draft.conditions.splice(to, 0, moved);
    focusAfterRender = { index: to, role };
    session.restructured();
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
        session.restructured();
      },
    },
  },
  handle, chip,
  el("div", { class: "condition-fields" }, el("div", { class: "row" }, nameField, colorField), rule,
    el("p", { class: "hint", text: used === 1 ? "Used by 1 parameter." : `Used by ${used} parameters.` })),
  el("div", { class: "actions" },
    button("Up", () => move(index - 1, "up"), { disabled: index === 0, dataset: { role: "up" }, "aria-label": `Move ${condition.name} up` }),
    button("Down", () => move(index + 1, "down"), { disabled: index === count - 1, dataset: { role: "down" }, "aria-label": `Move ${condition.name} down` }),
    button("Delete", () => {
      removeCondition(draft, index);
      focusAfterRender = { index: Math.max(0, index - 1), role: "up" };
      session.restructured();
    }, { class: "danger", "aria-label": `Delete ${condition.name}${used ? ` and its ${used} conditional value(s)` : ""}` })));
  return item;
}
