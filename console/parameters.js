// The Parameters view: every parameter as a card (key, type, group, description, default
// value, conditional values in condition order), filtered by key, value, description,
// condition or group, plus adding one.
//
// Built for a thousand parameters. A card shows its summary only until it is opened (the
// editors inside are made then); a card whose parameter did not change is kept when the list is
// drawn again, and only what changed is inserted or removed, so the page keeps its place; the
// filter only hides and shows cards. The first screenful of cards is made at once and the rest
// in slices after it is painted, so the list shows at once and is whole a moment later (for
// find-in-page and the Tab key); cards off screen are skipped by style and layout
// (content-visibility, styles.css).
import { button, el, field, replace, select, setIssue } from "./dom.js";
import * as session from "./session.js";
import { confirmStep } from "./confirm.js";
import { descriptionEditor, valueEditor } from "./values.js";
import {
  addParameter, allParameters, describeValue, hasKey, moveParameter, removeParameter, searchText, valueTypes,
} from "./template.js";

/** Cards made before the first paint: more than a tall screen holds. */
const firstSlice = 40;
/** Cards made per slice after it. */
const laterSlice = 200;

const openCards = new Set();
/** id → {node, reading, entry, text}: cards kept between draws while their parameter reads the same. */
let cards = new Map();
let cardsOf = null;
let cardsContext = "";
/** The parameters in the order shown: [{id, entry, reading, text}] of the last draw. */
let plan = [];
/** Group name ("" for none) → {node, heading, label}: the sections of the list. */
let sections = new Map();
/** The next slice, waiting for a paint: cancel() drops it. */
let nextSlice = { cancel() {} };
let root;
let list;
let filter;
let filterStatus;
let focusAfterRender = null;
/** Where focus was in the list (its place in `plan`), to put it back near there if its card goes. */
let lastFocusIndex = -1;
/** Condition name → colour, for the chips of one draw. */
let colors = new Map();

export function mount(container) {
  root = container;
  cards = new Map();
  plan = [];
  sections = new Map();
  cardsOf = null;
  nextSlice.cancel();
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
  filterStatus = el("p", { class: "hint filter-status", role: "status" });
  list = el("div", { class: "cards", on: { focusin: rememberFocus } });
  replace(root,
    el("h2", { tabIndex: -1, text: "Parameters" }),
    el("div", { class: "list-tools" },
      field("Filter", filter, { hint: "Matches keys, values, descriptions, condition names and groups." }),
      el("form", { class: "toolbar", on: { submit: add } }, keyField, el("button", { type: "submit", text: "Add parameter" }))),
    filterStatus,
    list);
  for (const name of ["replaced", "structure"]) session.events.addEventListener(name, render);
  session.events.addEventListener("issues-arrived", openCardsWithIssues);
  session.events.addEventListener("stepped", focusWhatAStepBroughtBack);
}

/**
 * Whether the view is on screen. Away, it is not hidden but skipped (`away`: content-visibility,
 * styles.css), so that coming back to a thousand cards does not lay them all out again.
 */
export function isShown() {
  return !root.classList.contains("away");
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
  colors = new Map(draft.conditions.map((condition) => [condition.name, condition.tagColor || "NONE"]));
  // What a card shows besides its parameter: the conditions (names, colours) and the groups.
  const context = `${draft.conditions.map((condition) => `${condition.name}:${condition.tagColor ?? ""}`)}\n${Object.keys(draft.parameterGroups)}`;
  // Another draft object (loaded, another template), or other conditions or groups: no card can be kept.
  if (cardsOf !== draft || cardsContext !== context) cards = new Map();
  cardsOf = draft;
  cardsContext = context;
  plan = allParameters(draft).map((entry) => {
    const id = cardId(entry.key, entry.group);
    return { id, entry, reading: JSON.stringify(entry.parameter), text: searchText(entry) };
  });
  const next = new Map();
  for (const item of plan) {
    const kept = cards.get(item.id);
    // A card is kept while it edits this very parameter object, and that reads the same.
    if (kept && kept.entry.parameter === item.entry.parameter && kept.reading === item.reading) {
      kept.entry = item.entry;
      next.set(item.id, kept);
    }
  }
  cards = next;
  draw(firstSlice);
  if (focusAfterRender) {
    const { id, role } = focusAfterRender;
    focusAfterRender = null;
    const target = ensureCard(id)?.node;
    const scope = role === "summary" ? null : target?.querySelector(`[data-role="${CSS.escape(role)}"]`);
    (scope?.querySelector("input, textarea") || scope?.querySelector("select, button") || target?.querySelector("summary"))?.focus();
  } else if (isShown() && (document.activeElement === document.body || document.activeElement === null) && lastFocusIndex >= 0) {
    // The focused card went (an undo took it back): focus the one now in its place.
    const item = plan[Math.min(lastFocusIndex, plan.length - 1)];
    if (item) ensureCard(item.id)?.node.querySelector("summary").focus();
  }
  performance.measure("parameters-render", "parameters-render-start");
}

/**
 * Puts the cards of `plan` in the list. At most `budget` new cards are made (those that match the
 * filter first) and at most `budget` cards are hidden or shown, from the top of the list down;
 * the rest follow in slices, each after a paint. Only what differs from the list as it is moves.
 */
function draw(budget) {
  const needle = filter.value.trim().toLowerCase();
  const matches = (item) => !needle || item.text.includes(needle);
  let made = 0;
  const make = (item) => {
    const card = { node: cardNode(item.entry), reading: item.reading, entry: item.entry, text: item.text };
    card.node.hidden = true;
    cards.set(item.id, card);
    made += 1;
  };
  for (const item of plan) if (made < budget && !cards.has(item.id) && matches(item)) make(item);
  for (const item of plan) if (made < budget && !cards.has(item.id)) make(item);
  let changed = 0;
  let settled = cards.size === plan.length;
  const byGroup = new Map();
  for (const item of plan) {
    const group = item.entry.group ?? "";
    if (!byGroup.has(group)) byGroup.set(group, []);
    const card = cards.get(item.id);
    if (!card) continue;
    card.text = item.text;
    const hidden = !matches(item);
    if (card.node.hidden !== hidden) {
      if (changed < budget) {
        card.node.hidden = hidden;
        changed += 1;
      } else {
        settled = false;
      }
    }
    byGroup.get(group).push(card.node);
  }
  const draft = session.draft();
  const groups = ["", ...Object.keys(draft.parameterGroups).sort()];
  const shown = [];
  for (const group of groups) {
    let section = sections.get(group);
    if (!section) {
      const label = group === "" ? "Not in a group" : `Group: ${group}`;
      section = { node: el("section", { class: "group-section", "aria-label": label }), heading: el("h3"), label, empty: el("p", { class: "hint", text: "No parameters here." }) };
      section.node.append(section.heading);
      sections.set(group, section);
    }
    const nodes = byGroup.get(group);
    reconcile(section.node, [section.heading, ...(nodes ? nodes : [section.empty])]);
    shown.push(section.node);
  }
  for (const [group, section] of sections) if (!groups.includes(group)) sections.delete(group);
  if (plan.length === 0 && groups.length === 1) {
    reconcile(list, [el("p", { class: "hint", text: "No parameters yet: add one above." })]);
  } else {
    reconcile(list, shown);
  }
  showCounts();
  nextSlice.cancel();
  if (!settled) nextSlice = afterPaint(() => draw(laterSlice));
}

/**
 * Runs `work` once the next frame is painted (a task posted from requestAnimationFrame runs after
 * that frame), so that what was drawn so far is on screen before more is drawn.
 */
function afterPaint(work) {
  let timer = null;
  const frame = requestAnimationFrame(() => {
    timer = setTimeout(work, 0);
  });
  return {
    cancel() {
      cancelAnimationFrame(frame);
      clearTimeout(timer);
    },
  };
}

/** Makes `parent`'s children exactly `nodes`, moving, inserting and removing only what differs. */
function reconcile(parent, nodes) {
  let current = parent.firstChild;
  for (const node of nodes) {
    if (node === current) {
      current = current.nextSibling;
      continue;
    }
    parent.insertBefore(node, current);
  }
  while (current) {
    const next = current.nextSibling;
    current.remove();
    current = next;
  }
}

/** The card of `id`, made now if it was not yet. */
function ensureCard(id) {
  let card = cards.get(id);
  if (card) return card;
  const item = plan.find((entry) => entry.id === id);
  if (!item) return null;
  card = { node: cardNode(item.entry), reading: item.reading, entry: item.entry, text: item.text };
  const needle = filter.value.trim().toLowerCase();
  card.node.hidden = Boolean(needle) && !item.text.includes(needle);
  cards.set(id, card);
  draw(0);
  return card;
}

/** Hides the cards that do not match the filter; builds nothing but the matching cards not made yet. */
function applyFilter() {
  performance.mark("parameters-filter-start");
  draw(firstSlice);
  performance.measure("parameters-filter", "parameters-filter-start");
}

/** Each group's heading counts its parameters (those that match, when filtering); the status says how many match. */
function showCounts() {
  const needle = filter.value.trim().toLowerCase();
  const counts = new Map();
  let shown = 0;
  for (const item of plan) {
    const group = item.entry.group ?? "";
    const count = counts.get(group) ?? { all: 0, match: 0 };
    count.all += 1;
    if (!needle || item.text.includes(needle)) {
      count.match += 1;
      shown += 1;
    }
    counts.set(group, count);
  }
  for (const [group, section] of sections) {
    const { all, match } = counts.get(group) ?? { all: 0, match: 0 };
    const text = needle ? `${section.label} (${match} of ${all})` : `${section.label} (${all})`;
    if (section.heading.textContent !== text) section.heading.textContent = text;
    const hidden = Boolean(needle) && match === 0;
    if (section.node.hidden !== hidden) section.node.hidden = hidden;
  }
  const status = needle ? `${shown} of ${plan.length} parameters match “${filter.value.trim()}”.` : "";
  if (filterStatus.textContent !== status) filterStatus.textContent = status;
}

function rememberFocus(event) {
  const node = event.target.closest("details.card");
  if (!node) return;
  lastFocusIndex = plan.findIndex((item) => item.id === node.dataset.id);
}

/** After an undo or redo: focus the parameter it brought back, where the list now shows it. */
function focusWhatAStepBroughtBack(event) {
  if (!isShown()) return;
  for (const { unit, removed } of event.detail.units) {
    const parameter = session.parameterOfUnit(unit);
    if (!parameter || removed) continue;
    const card = ensureCard(cardId(parameter.key, parameter.group));
    if (!card) continue;
    card.node.querySelector("summary").focus();
    return;
  }
}

/** Opens (and so builds) the cards the server's problems name, before they are put beside fields. */
function openCardsWithIssues() {
  for (const issue of session.issues()) {
    const match = /^parameters\.([^.[]+)/.exec(issue.path) || /^parameterGroups\.([^.[]+)\.parameters\.([^.[]+)/.exec(issue.path);
    if (!match) continue;
    const id = match.length === 3 ? cardId(match[2], match[1]) : cardId(match[1], null);
    const made = ensureCard(id);
    if (made) openCard(made.node);
  }
}

function openCard(node) {
  node.build();
  node.open = true;
}

function cardNode(item) {
  const { key, group, parameter } = item;
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
    // Focus goes to the card after it (or before it, for the last one), which takes its place.
    const at = plan.findIndex((entry) => entry.id === id);
    const visible = (entry) => entry.id !== id && !cards.get(entry.id)?.node.hidden;
    const next = plan.slice(at + 1).find(visible) ?? plan.slice(0, Math.max(at, 0)).reverse().find(visible);
    removeParameter(draft, key, group);
    openCards.delete(id);
    if (next) focusAfterRender = { id: next.id, role: "summary" };
    session.restructured(`delete parameter ${key}`);
    if (!next) root.querySelector("h2").focus();
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

/** A condition's name on its colour. */
export function conditionChip(name) {
  const color = colors.get(name) ?? (session.draft()?.conditions.find((item) => item.name === name)?.tagColor || "NONE");
  return el("span", { class: `chip color-${color}`, text: name });
}

/** After a change that re-renders: keep the card open and put focus back where it was. */
function rememberMove(oldId, newId, role, label = "change") {
  openCards.delete(oldId);
  openCards.add(newId);
  focusAfterRender = { id: newId, role };
  session.restructured(label);
}
