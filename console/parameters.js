// The Parameters view: every parameter as a card (key, type, group, description, default
// value, conditional values in condition order), filtered by key, plus adding one.
import { button, el, field, replace, select, setIssue } from "./dom.js";
import * as session from "./session.js";
import { descriptionEditor, valueEditor } from "./values.js";
import {
  addParameter, allParameters, describeValue, hasKey, moveParameter, removeParameter, valueTypes,
} from "./template.js";

const openCards = new Set();
let root;
let list;
let filter;
let focusAfterRender = null;

export function mount(container) {
  root = container;
  const keyInput = el("input", { type: "text", autocomplete: "off", spellcheck: false });
  const keyField = field("New parameter key", keyInput, { hint: "Letters, digits and _; not starting with a digit." });
  const add = (event) => {
    event.preventDefault();
    const key = keyInput.value.trim();
    const draft = session.draft();
    if (!key) return setIssue(keyField, "Enter a key.");
    if (hasKey(draft, key)) return setIssue(keyField, `A parameter '${key}' already exists.`);
    setIssue(keyField, "");
    addParameter(draft, key);
    keyInput.value = "";
    openCards.add(cardId(key, null));
    focusAfterRender = { id: cardId(key, null), role: "default" };
    session.restructured();
  };
  filter = el("input", { type: "search", autocomplete: "off", on: { input: render } });
  list = el("div", { class: "cards" });
  replace(root,
    el("h2", { tabIndex: -1, text: "Parameters" }),
    el("form", { class: "toolbar", on: { submit: add } }, keyField, el("button", { type: "submit", text: "Add parameter" })),
    field("Filter by key", filter),
    list);
  for (const name of ["replaced", "structure"]) session.events.addEventListener(name, render);
}

function cardId(key, group) {
  return `${group ?? ""}\n${key}`;
}

export function render() {
  const draft = session.draft();
  if (!draft || !list) return;
  const needle = filter.value.trim().toLowerCase();
  const entries = allParameters(draft).filter((item) => item.key.toLowerCase().includes(needle));
  const sections = [];
  const groups = [null, ...Object.keys(draft.parameterGroups).sort()];
  for (const group of groups) {
    const inGroup = entries.filter((item) => item.group === group);
    if (group !== null && inGroup.length === 0 && needle) continue;
    const heading = group === null ? "Not in a group" : `Group: ${group}`;
    sections.push(el("section", { class: "group-section", "aria-label": heading },
      el("h3", { text: `${heading} (${inGroup.length})` }),
      inGroup.length ? inGroup.map(card) : el("p", { class: "hint", text: "No parameters here." })));
  }
  if (entries.length === 0 && Object.keys(draft.parameterGroups).length === 0 && !needle) {
    sections.splice(0, sections.length, el("p", { class: "hint", text: "No parameters yet: add one above." }));
  }
  replace(list, ...sections);
  if (focusAfterRender) {
    const { id, role } = focusAfterRender;
    focusAfterRender = null;
    const target = [...list.querySelectorAll("details.card")].find((node) => node.dataset.id === id);
    const scope = target?.querySelector(`[data-role="${CSS.escape(role)}"]`);
    (scope?.querySelector("input, textarea") || scope?.querySelector("select, button") || target?.querySelector("summary"))?.focus();
  }
}

function card(item) {
  const { key, group, parameter, path } = item;
  const draft = session.draft();
  const id = cardId(key, group);
  const type = parameter.valueType || "STRING";
  const preview = el("span", { class: "preview" });
  const chips = el("span", { class: "chips" });
  const refreshSummary = () => {
    preview.textContent = describeValue(parameter.defaultValue);
    const names = Object.keys(parameter.conditionalValues || {});
    replace(chips, ...names.map((name) => conditionChip(name)));
  };
  refreshSummary();
  const details = el("details", {
    class: "card", open: openCards.has(id), dataset: { id, key, group: group ?? "" },
    on: { toggle: (event) => (event.target.open ? openCards.add(id) : openCards.delete(id)) },
  }, el("summary", {}, el("span", { class: "key", text: key }), el("span", { class: "badge", text: type }), preview, chips));

  const keyInput = el("input", { type: "text", value: key, spellcheck: false, autocomplete: "off" });
  const keyField = field("Key", keyInput);
  keyField.dataset.role = "key";
  keyInput.addEventListener("change", () => {
    const newKey = keyInput.value.trim();
    if (newKey === key) return;
    if (!newKey) return setIssue(keyField, "A key must not be empty.");
    if (hasKey(draft, newKey)) return setIssue(keyField, `A parameter '${newKey}' already exists.`);
    moveParameter(draft, key, group, newKey, group);
    rememberMove(id, cardId(newKey, group), "key");
  });
  session.registerField(path, keyField);

  const typeSelect = select(valueTypes.map((name) => [name, name]), type, {
    on: {
      change: (event) => {
        parameter.valueType = event.target.value;
        rememberMove(id, id, "type");
      },
    },
  });
  const typeField = field("Type", typeSelect);
  typeField.dataset.role = "type";
  session.registerField(`${path}.valueType`, typeField);

  const groupOptions = [["", "Not in a group"], ...Object.keys(draft.parameterGroups).sort().map((name) => [name, name])];
  const groupSelect = select(groupOptions, group ?? "", {
    on: {
      change: (event) => {
        const newGroup = event.target.value || null;
        moveParameter(draft, key, group, key, newGroup);
        rememberMove(id, cardId(key, newGroup), "group");
      },
    },
  });
  const groupField = field("Group", groupSelect);
  groupField.dataset.role = "group";

  const descriptionField = descriptionEditor(parameter, path);

  const defaultEditor = valueEditor({
    legend: "Default value", value: parameter.defaultValue, type, path: `${path}.defaultValue`, allowNone: true,
    onChange: (value) => {
      if (value === undefined) delete parameter.defaultValue;
      else parameter.defaultValue = value;
      refreshSummary();
      session.edited();
    },
  });
  defaultEditor.dataset.role = "default";

  details.append(el("div", { class: "card-body" },
    el("div", { class: "row" }, keyField, typeField, groupField),
    descriptionField, defaultEditor,
    conditionalValues(item, type, id, refreshSummary),
    el("div", { class: "actions" }, button(`Delete parameter ${key}`, () => {
      removeParameter(draft, key, group);
      openCards.delete(id);
      session.restructured();
      root.querySelector("h2").focus();
    }, { class: "danger" }))));
  return details;
}

/** The conditional values in condition (priority) order, then any naming no condition. */
function conditionalValues(item, type, id, refreshSummary) {
  const { parameter, path } = item;
  const draft = session.draft();
  const values = parameter.conditionalValues || {};
  const names = draft.conditions.map((condition) => condition.name);
  const ordered = [...names.filter((name) => Object.hasOwn(values, name)),
    ...Object.keys(values).filter((name) => !names.includes(name))];
  const rows = ordered.map((name) => {
    const known = names.includes(name);
    const editor = valueEditor({
      legend: known ? `When ${name} is true` : `When ${name} (no such condition)`,
      value: values[name], type, path: `${path}.conditionalValues.${name}`,
      onChange: (value) => {
        values[name] = value;
        refreshSummary();
        session.edited();
      },
    });
    editor.dataset.role = `conditional-${name}`;
    return el("div", { class: "conditional" }, conditionChip(name), editor,
      button(`Remove the value for ${name}`, () => {
        delete values[name];
        if (Object.keys(values).length === 0) delete parameter.conditionalValues;
        rememberMove(id, id, "add-conditional");
      }, { class: "small" }));
  });
  const available = names.filter((name) => !Object.hasOwn(values, name));
  let adder;
  if (available.length === 0) {
    adder = el("p", { class: "hint", text: names.length ? "Every condition has a value here." : "No conditions yet: add them under Conditions." });
  } else {
    const choice = select(available.map((name) => [name, name]), available[0]);
    const choiceField = field("Condition", choice);
    adder = el("div", { class: "row add-conditional", dataset: { role: "add-conditional" } }, choiceField,
      button("Add conditional value", () => {
        parameter.conditionalValues = { ...values, [choice.value]: { value: "" } };
        rememberMove(id, id, `conditional-${choice.value}`);
      }));
  }
  return el("section", { class: "conditionals", "aria-label": "Conditional values" },
    el("h4", { text: "Conditional values (first true condition wins)" }), ...rows, adder);
}

export function conditionChip(name) {
  const condition = session.draft()?.conditions.find((item) => item.name === name);
  const color = condition?.tagColor || "NONE";
  return el("span", { class: `chip color-${color}`, text: name });
}

/** After a change that re-renders: keep the card open and put focus back where it was. */
function rememberMove(oldId, newId, role) {
  openCards.delete(oldId);
  openCards.add(newId);
  focusAfterRender = { id: newId, role };
  session.restructured();
}
