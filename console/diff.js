// Shows a template diff (the server's `:diff` answer, of two versions or of a draft, or a change
// request's diff) as lists of added, removed and changed parameters, conditions and groups, with
// what each holds: an added parameter's type, default and conditional values; an added
// condition's rule and colour; what a removed one held; each conditional value that changed,
// from and to. A diff without content (an older server's, names only) still shows the names.
import { el } from "./dom.js";
import { describeValue, isObject } from "./template.js";

const mark = { added: "+ ", removed: "− ", changed: "~ " };
/** Values longer than this are cut in a diff; the whole template is a click away. */
const longest = 200;

export function renderDiff(diff) {
  const content = (side, kind, name, field) => (diff[side]?.[kind] ?? []).find((item) => item?.[field] === name);
  const sections = [
    section("Parameters",
      (diff.addedParameters ?? []).map((key) => item("added", key, "added", parameterLines(content("added", "parameters", key, "key")))),
      (diff.removedParameters ?? []).map((key) => item("removed", key, "removed", parameterLines(content("removed", "parameters", key, "key"), "it held"))),
      (diff.changedParameters ?? []).map((change) => item("changed", change.key, describeChange(change), conditionalLines(change.conditionalValues)))),
    section("Conditions",
      (diff.addedConditions ?? []).map((name) => item("added", name, "added", conditionLines(content("added", "conditions", name, "name")))),
      (diff.removedConditions ?? []).map((name) => item("removed", name, "removed", conditionLines(content("removed", "conditions", name, "name"), "it was"))),
      [...(diff.changedConditions ?? []).map((change) => item("changed", change.name, describeChange(change))),
        ...(diff.conditionOrder ? [item("changed", "priority order", `${diff.conditionOrder.from.join(", ")} → ${diff.conditionOrder.to.join(", ")}`)] : [])]),
    section("Groups",
      (diff.addedGroups ?? []).map((name) => item("added", name, "added", groupLines(content("added", "groups", name, "name")))),
      (diff.removedGroups ?? []).map((name) => item("removed", name, "removed", groupLines(content("removed", "groups", name, "name")))),
      (diff.changedGroups ?? []).map((change) => item("changed", change.name, `description: ${change.description.from ?? "(none)"} → ${change.description.to ?? "(none)"}`))),
  ].filter(Boolean);
  if (sections.length === 0) return el("p", { class: "diff-empty", text: "No differences." });
  return el("div", { class: "diff" }, ...sections);
}

function section(title, added, removed, changed) {
  if (added.length + removed.length + changed.length === 0) return null;
  return el("section", { "aria-label": title }, el("h4", { text: title }), el("ul", {}, ...added, ...removed, ...changed));
}

function item(kind, name, detail, lines = []) {
  return el("li", { class: kind }, el("span", { class: "mark", text: mark[kind], "aria-hidden": "true" }),
    el("code", { text: name }), " ", el("span", { class: "detail", text: detail }),
    lines.length ? el("ul", { class: "diff-content" }, ...lines.map((line) => el("li", { text: line }))) : null);
}

/** A value as a diff shows it: its text (cut when long), in-app default, or none. */
function show(value) {
  if (!isObject(value)) return "(none)";
  const text = describeValue(value);
  return text.length > longest ? `${text.slice(0, longest)}…` : text;
}

/** What an added or removed parameter holds, a line each: type, group, default, conditional values, description. */
function parameterLines(parameter, lead = "") {
  if (!parameter) return [];
  const lines = [`type: ${parameter.valueType ?? "STRING"}`];
  if (parameter.group) lines.push(`group: ${parameter.group}`);
  lines.push(`default: ${show(parameter.defaultValue)}`);
  for (const [name, value] of Object.entries(parameter.conditionalValues ?? {})) lines.push(`when ${name}: ${show(value)}`);
  if (parameter.description) lines.push(`description: ${parameter.description}`);
  if (lead) lines[0] = `${lead} ${lines[0]}`;
  return lines;
}

function conditionLines(condition, lead = "") {
  if (!condition) return [];
  const lines = [`rule: ${condition.expression ?? (condition.condition ? JSON.stringify(condition.condition) : "(none)")}`];
  if (condition.tagColor) lines.push(`colour: ${condition.tagColor.replace("_", " ").toLowerCase()}`);
  if (lead) lines[0] = `${lead} ${lines[0]}`;
  return lines;
}

function groupLines(group) {
  return group?.description ? [`description: ${group.description}`] : [];
}

/** Each conditional value a changed parameter gained, lost or changed, from and to (when the diff carries them). */
function conditionalLines(values) {
  if (!values?.values) return [];
  const lines = [];
  for (const name of values.added ?? []) lines.push(`when ${name}: ${show(values.values[name]?.to)} (added)`);
  for (const name of values.removed ?? []) lines.push(`when ${name}: ${show(values.values[name]?.from)} (removed)`);
  for (const name of values.changed ?? []) lines.push(`when ${name}: ${show(values.values[name]?.from)} → ${show(values.values[name]?.to)}`);
  return lines;
}

/** A changed parameter's (`key`) or condition's (`name`) change in a few words. */
export function describeChange(change) {
  const parts = [];
  if (change.key !== undefined) {
    if (change.defaultValue) parts.push(`default: ${show(change.defaultValue.from)} → ${show(change.defaultValue.to)}`);
    if (change.valueType) parts.push(`type: ${change.valueType.from} → ${change.valueType.to}`);
    if (change.description) parts.push(`description: ${change.description.from ?? "(none)"} → ${change.description.to ?? "(none)"}`);
    if (change.group) parts.push(`group: ${change.group.from ?? "(none)"} → ${change.group.to ?? "(none)"}`);
    const values = change.conditionalValues;
    if (values) {
      if (values.added?.length) parts.push(`conditional values added: ${values.added.join(", ")}`);
      if (values.removed?.length) parts.push(`conditional values removed: ${values.removed.join(", ")}`);
      if (values.changed?.length) parts.push(`conditional values changed: ${values.changed.join(", ")}`);
    }
    return parts.join("; ");
  }
  if (change.expression) parts.push(`rule: ${change.expression.from ?? "(none)"} → ${change.expression.to ?? "(none)"}`);
  if (change.condition) parts.push("structured rule changed");
  if (change.tagColor) parts.push(`colour: ${change.tagColor.from ?? "(none)"} → ${change.tagColor.to ?? "(none)"}`);
  return parts.join("; ");
}

/** The diff as plain lines ("+ parameter x added: default 1", "~ parameter y: default: a → b"), for confirmations. */
export function diffLines(diff) {
  const lines = [];
  const content = (side, kind, name, field) => (diff[side]?.[kind] ?? []).find((entry) => entry?.[field] === name);
  const add = (kind, noun, names, holds = () => []) => {
    for (const name of names ?? []) {
      const held = holds(name);
      lines.push(`${mark[kind]}${noun} ${name} ${kind}${held.length ? `: ${held.join("; ")}` : ""}`);
    }
  };
  add("added", "parameter", diff.addedParameters, (key) => parameterLines(content("added", "parameters", key, "key")));
  add("removed", "parameter", diff.removedParameters);
  for (const change of diff.changedParameters ?? []) lines.push(`${mark.changed}parameter ${change.key}: ${describeChange(change)}`);
  add("added", "condition", diff.addedConditions, (name) => conditionLines(content("added", "conditions", name, "name")));
  add("removed", "condition", diff.removedConditions);
  for (const change of diff.changedConditions ?? []) lines.push(`${mark.changed}condition ${change.name}: ${describeChange(change)}`);
  if (diff.conditionOrder) lines.push(`${mark.changed}condition priority order`);
  add("added", "group", diff.addedGroups);
  add("removed", "group", diff.removedGroups);
  for (const change of diff.changedGroups ?? []) lines.push(`${mark.changed}group ${change.name}: description`);
  return lines;
}
