// The Parameters view: every parameter as a card (key, type, group, description, default
// value, conditional values in condition order), filtered by key, value, description,
// condition or group, plus adding one.
//
// Built for a thousand parameters: a card shows its summary only until it is opened (the
// editors inside are made then), a card whose parameter did not change is reused when the list
// is drawn again, and the filter only hides and shows cards.
import { button, el, field, replace, select, setIssue } from "./dom.js";
import * as session from "./session.js";
import { confirmStep } from "./confirm.js";
import { descriptionEditor, valueEditor } from "./values.js";
import {
  addParameter, allParameters, describeValue, hasKey, moveParameter, removeParameter, searchText, valueTypes,
} from "./template.js";

const openCards = new Set();
/** id → {node, reading, entry}: cards kept between draws while their parameter reads the same. */
let cards = new Map();
let cardsOf = null;
let root;
let list;
let filter;
let filterStatus;
let focusAfterRender = null;

export function mount(container) {
  root = container;
  cards = new Map();
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
    session.restructured(`new parameter ${key}`);
  };
  filter = el("input", { type: "search", autocomplete: "off", on: { input: applyFilter } });
  filterStatus = el("p", { class: "hint", role: "status" });
  list = el("div", { class: "cards" });
  replace(root,
    el("h2", { tabIndex: -1, text: "Parameters" }),
    el("form", { class: "toolbar", on: { submit: add } }, keyField, el("button", { type: "submit", text: "Add parameter" })),
    field("Filter", filter, { hint: "Matches keys, values, descriptions, condition names and groups." }),
    filterStatus,
    list);
  for (const name of ["replaced", "structure"]) session.events.addEventListener(name, render);
  session.events.addEventListener("issues-arrived", openCardsWithIssues);
}

/** Shows the parameters that mention `text` (a condition's "used by" link). */
export function filterBy(text) {
  filter.value = text;
  applyFilter();
}

function cardId(key, group) {
  return `${group ?? ""}\n${key}`;
}

export function render() {
  const draft = session.draft();
  if (!draft || !list) return;
  performance.mark("parameters-render-start");
  // Another draft object (loaded, undone, another template): no card can be reused.
  if (cardsOf !== draft) cards = new Map();
  cardsOf = draft;
  const entries = allParameters(draft);
  // What a card shows besides its parameter: the conditions (names, colours) and the groups.
  const context = `${draft.conditions.map((condition) => `${condition.name}:${condition.tagColor ?? ""}`)}\n${Object.keys(draft.parameterGroups)}`;
  const next = new Map();
  const sections = [];
  const groups = [null, ...Object.keys(draft.parameterGroups).sort()];
  let index = 0;
  for (const group of groups) {
    const inGroup = [];
    while (index < entries.length && entries[index].group === group) inGroup.push(entries[index++]);
    const heading = group === null ? "Not in a group" : `Group: ${group}`;
    const nodes = inGroup.map((entry) => {
      const id = cardId(entry.key, entry.group);
      // A card is reused while its parameter, and the conditions it names, read the same.
      const reading = `${context}\n${JSON.stringify(entry.parameter)}`;
      const kept = cards.get(id);
      const made = kept && kept.reading === reading ? kept : { node: card(entry), reading };
      made.entry = entry;
      next.set(id, made);
      return made.node;
    });
    const section = el("section", { class: "group-section", "aria-label": heading },
      el("h3", { text: `${heading} (${inGroup.length})` }),
      nodes.length ? nodes : el("p", { class: "hint", text: "No parameters here." }));
    section.dataset.heading = heading;
    sections.push(section);
  }
  cards = next;
  if (entries.length === 0 && Object.keys(draft.parameterGroups).length === 0) {
    sections.splice(0, sections.length, el("p", { class: "hint", text: "No parameters yet: add one above." }));
  }
  replace(list, ...sections);
  applyFilter();
  if (focusAfterRender) {
    const { id, role } = focusAfterRender;
    focusAfterRender = null;
    const target = cards.get(id)?.node;
    const scope = target?.querySelector(`[data-role="${CSS.escape(role)}"]`);
    (scope?.querySelector("input, textarea") || scope?.querySelector("select, button") || target?.querySelector("summary"))?.focus();
  }
  performance.measure("parameters-render", "parameters-render-start");
}

/** Hides the cards that do not match the filter; builds nothing. */
function applyFilter() {
  performance.mark("parameters-filter-start");
  const needle = filter.value.trim().toLowerCase();
  let shown = 0;
  for (const { node, entry } of cards.values()) {
    const match = !needle || searchText(entry).includes(needle);
    if (node.hidden === match) node.hidden = !match;
    if (match) shown += 1;
  }
  for (const section of list.querySelectorAll("section.group-section")) {
    const visible = section.querySelectorAll(":scope > details.card:not([hidden])").length;
    const total = section.querySelectorAll(":scope > details.card").length;
    section.hidden = Boolean(needle) && visible === 0;
    section.querySelector("h3").textContent = needle
      ? `${section.dataset.heading} (${visible} of ${total})` : `${section.dataset.heading} (${total})`;
  }
  filterStatus.textContent = needle ? `${shown} of ${cards.size} parameters match “${filter.value.trim()}”.` : "";
  performance.measure("parameters-filter", "parameters-filter-start");
}

/** Opens (and so builds) the cards the server's problems name, before they are put beside fields. */
function openCardsWithIssues() {
  for (const issue of session.issues()) {
    const match = /^parameters\.([^.[]+)/.exec(issue.path) || /^parameterGroups\.([^.[]+)\.parameters\.([^.[]+)/.exec(issue.path);
    if (!match) continue;
    const id = match.length === 3 ? cardId(match[2], match[1]) : cardId(match[1], null);
    const made = cards.get(id);
    if (made) openCard(made.node);
  }
}

function openCard(node) {
  node.build();
  node.open = true;
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
    class: "card", dataset: { id, key, group: group ?? "" },
    on: {
      toggle: (event) => {
        if (event.target.open) {
          details.build();
          openCards.add(id);
        } else {
          openCards.delete(id);
        }
      },
    },
  }, el("summary", {}, el("span", { class: "key", text: key }), el("span", { class: "badge", text: type }), preview, chips));
  let built = false;
  details.build = () => {
    if (built) return;
    built = true;
    details.append(body(item, refreshSummary));
  };
  if (openCards.has(id)) openCard(details);
  return details;
}

/** The editors of one parameter, made when its card is first opened. */
function body(item, refreshSummary) {
  const { key, group, parameter, path } = item;
  const draft = session.draft();
  const id = cardId(key, group);
  const type = parameter.valueType || "STRING";
  const confirmArea = el("div", { class: "confirm-area" });

  const keyInput = el("input", { type: "text", value: key, spellcheck: false, autocomplete: "off" });
  const keyField = field("Key", keyInput);
  keyField.dataset.role = "key";
  keyInput.addEventListener("change", () => {
    const newKey = keyInput.value.trim();
    if (newKey === key) return;
    if (!newKey) return setIssue(keyField, "A key must not be empty.");
    if (hasKey(draft, newKey)) return setIssue(keyField, `A parameter '${newKey}' already exists.`);
    moveParameter(draft, key, group, newKey, group);
    rememberMove(id, cardId(newKey, group), "key", `rename ${key} to ${newKey}`);
  });
  session.registerField(path, keyField);

  const typeSelect = select(valueTypes.map((name) => [name, name]), type, {
    on: {
      change: (event) => {
        parameter.valueType = event.target.value;
        rememberMove(id, id, "type", `type of ${key}`);
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
        rememberMove(id, cardId(key, newGroup), "group", `move ${key}`);
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
      session.edited(`default value of ${key}`);
    },
  });
  defaultEditor.dataset.role = "default";

  const remove = () => {
    removeParameter(draft, key, group);
    openCards.delete(id);
    session.restructured(`delete parameter ${key}`);
    root.querySelector("h2").focus();
  };
  const conditional = Object.keys(parameter.conditionalValues || {});
  return el("div", { class: "card-body" },
    el("div", { class: "row" }, keyField, typeField, groupField),
    descriptionField, defaultEditor,
    conditionalValues(item, type, id, refreshSummary),
    el("div", { class: "actions" }, button(`Delete parameter ${key}`, () => confirmStep(confirmArea, {
      title: `Delete parameter ${key}?`,
      lost: [`its default value: ${describeValue(parameter.defaultValue)}`,
        ...conditional.map((name) => `its value when ${name} is true: ${describeValue(parameter.conditionalValues[name])}`)],
      confirmLabel: `Delete ${key}`,
      onConfirm: remove,
    }), { class: "danger" })),
    confirmArea);
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
        session.edited(`${name} value of ${item.key}`);
      },
    });
    editor.dataset.role = `conditional-${name}`;
    return el("div", { class: "conditional" }, conditionChip(name), editor,
      button(`Remove the value for ${name}`, () => {
        delete values[name];
        if (Object.keys(values).length === 0) delete parameter.conditionalValues;
        rememberMove(id, id, "add-conditional", `remove the ${name} value of ${item.key}`);
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
        rememberMove(id, id, `conditional-${choice.value}`, `add a ${choice.value} value to ${item.key}`);
      }));
  }
  return el("section", { class: "conditionals", "aria-label": `Conditional values of ${item.key}` },
    el("h4", { text: "Conditional values (first true condition wins)" }), ...rows, adder);
}

export function conditionChip(name) {
  const condition = session.draft()?.conditions.find((item) => item.name === name);
  const color = condition?.tagColor || "NONE";
  return el("span", { class: `chip color-${color}`, text: name });
}

/** After a change that re-renders: keep the card open and put focus back where it was. */
function rememberMove(oldId, newId, role, label = "change") {
  openCards.delete(oldId);
  openCards.add(newId);
  focusAfterRender = { id: newId, role };
  session.restructured(label);
}
