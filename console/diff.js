// Shows a template diff (the server's `:diff` answer, or template.js's diffTemplates) as lists
// of added, removed and changed parameters, conditions and groups.
import { el } from "./dom.js";
import { describeValue, isObject } from "./template.js";

const mark = { added: "+ ", removed: "− ", changed: "~ " };

export function renderDiff(diff) {
  const sections = [
    section("Parameters", diff.addedParameters, diff.removedParameters, (diff.changedParameters || []).map(parameterChange)),
    section("Conditions", diff.addedConditions, diff.removedConditions, [
      ...(diff.changedConditions || []).map(conditionChange),
      ...(diff.conditionOrder ? [item("changed", "priority order", `${diff.conditionOrder.from.join(", ")} → ${diff.conditionOrder.to.join(", ")}`)] : []),
    ]),
    section("Groups", diff.addedGroups, diff.removedGroups, (diff.changedGroups || []).map((change) =>
      item("changed", change.name, `description: ${change.description.from ?? "(none)"} → ${change.description.to ?? "(none)"}`))),
  ].filter(Boolean);
  if (sections.length === 0) return el("p", { class: "diff-empty", text: "No differences." });
  return el("div", { class: "diff" }, ...sections);
}

function section(title, added = [], removed = [], changed = []) {
  if (added.length + removed.length + changed.length === 0) return null;
  return el("section", { "aria-label": title },
    el("h4", { text: title }),
    el("ul", {}, ...added.map((name) => item("added", name, "added")),
      ...removed.map((name) => item("removed", name, "removed")), ...changed));
}

function item(kind, name, detail) {
  return el("li", { class: kind }, el("span", { class: "mark", text: mark[kind], "aria-hidden": "true" }),
    el("code", { text: name }), " ", el("span", { class: "detail", text: detail }));
}

function parameterChange(change) {
  const parts = [];
  if (change.defaultValue) parts.push(`default: ${show(change.defaultValue.from)} → ${show(change.defaultValue.to)}`);
  if (change.valueType) parts.push(`type: ${change.valueType.from} → ${change.valueType.to}`);
  if (change.description) parts.push(`description: ${change.description.from ?? "(none)"} → ${change.description.to ?? "(none)"}`);
  if (change.group) parts.push(`group: ${change.group.from ?? "(none)"} → ${change.group.to ?? "(none)"}`);
  const values = change.conditionalValues;
  if (values) {
    if (values.added.length) parts.push(`conditional values added: ${values.added.join(", ")}`);
    if (values.removed.length) parts.push(`conditional values removed: ${values.removed.join(", ")}`);
    if (values.changed.length) parts.push(`conditional values changed: ${values.changed.join(", ")}`);
  }
  return item("changed", change.key, parts.join("; "));
}

function conditionChange(change) {
  const parts = [];
  if (change.expression) parts.push(`rule: ${change.expression.from ?? "(none)"} → ${change.expression.to ?? "(none)"}`);
  if (change.condition) parts.push("structured rule changed");
  if (change.tagColor) parts.push(`colour: ${change.tagColor.from ?? "(none)"} → ${change.tagColor.to ?? "(none)"}`);
  return item("changed", change.name, parts.join("; "));
}

function show(value) {
  return isObject(value) ? describeValue(value) : "(none)";
}

/** The diff as plain lines ("+ parameter x", "~ parameter y: default: a → b"), for confirmations. */
export function diffLines(diff) {
  const lines = [];
  const add = (kind, noun, names) => {
    for (const name of names || []) lines.push(`${mark[kind]}${noun} ${name} ${kind}`);
  };
  add("added", "parameter", diff.addedParameters);
  add("removed", "parameter", diff.removedParameters);
  for (const change of diff.changedParameters || []) lines.push(`${mark.changed}parameter ${change.key}: ${parameterChange(change).lastChild.textContent}`);
  add("added", "condition", diff.addedConditions);
  add("removed", "condition", diff.removedConditions);
  for (const change of diff.changedConditions || []) lines.push(`${mark.changed}condition ${change.name}: ${conditionChange(change).lastChild.textContent}`);
  if (diff.conditionOrder) lines.push(`${mark.changed}condition priority order`);
  add("added", "group", diff.addedGroups);
  add("removed", "group", diff.removedGroups);
  for (const change of diff.changedGroups || []) lines.push(`${mark.changed}group ${change.name}: description`);
  return lines;
}
