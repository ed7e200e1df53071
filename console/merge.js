// Three-way merge of a draft with a version someone else published meanwhile, parameter by
// parameter, condition by condition and group by group: what only they changed is taken, what
// only this draft changed is kept, and where both changed the same item the person chooses
// (keep mine or take theirs).
import { allParameters, canonicalJSON, content, normalize } from "./template.js";

function parametersByKey(template) {
  const map = new Map();
  for (const { key, group, parameter } of allParameters(template)) {
    if (!map.has(key)) map.set(key, { group, parameter });
  }
  return map;
}

function conditionsByName(template) {
  return new Map(template.conditions.map((condition) => [condition.name, condition]));
}

function groupsByName(template) {
  return new Map(Object.entries(template.parameterGroups).map(([name, group]) => [name, { description: group.description ?? null }]));
}

const reading = (value) => (value === undefined ? "" : canonicalJSON(value));

/** The items of one kind: each {kind, name, base, mine, theirs, state} that someone changed. */
function compare(kind, base, mine, theirs) {
  const names = [...new Set([...base.keys(), ...mine.keys(), ...theirs.keys()])].sort();
  const items = [];
  for (const name of names) {
    const [b, m, t] = [base.get(name), mine.get(name), theirs.get(name)].map(reading);
    if (m === t && m === b) continue;
    let state;
    if (m === t) state = "same";
    else if (m === b) state = "theirs";
    else if (t === b) state = "mine";
    else state = "conflict";
    items.push({ kind, name, base: base.get(name), mine: mine.get(name), theirs: theirs.get(name), state });
  }
  return items;
}

/**
 * What merging `mine` (a draft started from `base`) with `theirs` involves: every item either
 * side changed, with `state` "theirs" (only they changed it), "mine" (only this draft),
 * "same" (both made the same change) or "conflict" (both, differently).
 */
export function mergeItems(base, mine, theirs) {
  [base, mine, theirs] = [base, mine, theirs].map((template) => normalize(content(template)));
  return [
    ...compare("parameter", parametersByKey(base), parametersByKey(mine), parametersByKey(theirs)),
    ...compare("condition", conditionsByName(base), conditionsByName(mine), conditionsByName(theirs)),
    ...compare("group", groupsByName(base), groupsByName(mine), groupsByName(theirs)),
  ];
}

/**
 * The merged template: `theirs`, with every item whose state is "mine", or a conflict chosen
 * as "mine" in `choices` (kind + "\n" + name → "mine" | "theirs"), as this draft has it.
 */
export function mergedTemplate(theirs, mine, items, choices) {
  const result = normalize(content(theirs));
  mine = normalize(content(mine));
  const takesMine = (item) => item.state === "mine" || (item.state === "conflict" && choices.get(`${item.kind}\n${item.name}`) !== "theirs");
  for (const item of items.filter((entry) => entry.kind === "group" && takesMine(entry))) {
    if (!item.mine) {
      // Its parameters, if any stay, move out of the group below or with their own items.
      delete result.parameterGroups[item.name];
      continue;
    }
    result.parameterGroups[item.name] ??= { parameters: {} };
    if (item.mine.description === null) delete result.parameterGroups[item.name].description;
    else result.parameterGroups[item.name].description = item.mine.description;
  }
  for (const item of items.filter((entry) => entry.kind === "parameter" && takesMine(entry))) {
    for (const { key, group } of allParameters(result)) {
      if (key === item.name) delete (group === null ? result.parameters : result.parameterGroups[group].parameters)[key];
    }
    if (!item.mine) continue;
    const { group, parameter } = item.mine;
    if (group !== null) result.parameterGroups[group] ??= { ...mine.parameterGroups[group], parameters: {} };
    (group === null ? result.parameters : result.parameterGroups[group].parameters)[item.name] = structuredClone(parameter);
  }
  // A group this merge removed may still hold parameters it kept: they stay, outside any group.
  for (const [name, group] of Object.entries(theirs.parameterGroups ?? {})) {
    if (result.parameterGroups[name]) continue;
    for (const [key, parameter] of Object.entries(group.parameters ?? {})) {
      if (!allParameters(result).some((entry) => entry.key === key)) result.parameters[key] = structuredClone(parameter);
    }
  }
  const chosenConditions = items.filter((entry) => entry.kind === "condition" && takesMine(entry));
  for (const item of chosenConditions) {
    const at = result.conditions.findIndex((condition) => condition.name === item.name);
    if (!item.mine) {
      if (at >= 0) result.conditions.splice(at, 1);
    } else if (at >= 0) {
      result.conditions[at] = structuredClone(item.mine);
    } else {
      // A condition only this draft has: placed after the one before it in this draft's order.
      const before = mine.conditions[mine.conditions.findIndex((condition) => condition.name === item.name) - 1];
      const after = before ? result.conditions.findIndex((condition) => condition.name === before.name) : -1;
      result.conditions.splice(after + 1, 0, structuredClone(item.mine));
    }
  }
  return result;
}
