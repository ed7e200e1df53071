// Reading and changing a template's JSON in place. The editor changes only the members it
// shows, so everything else (rollout, personalization and experiment values, structured server
// conditions, members this console does not know) goes back to the server untouched.

export const valueTypes = ["STRING", "BOOLEAN", "NUMBER", "JSON"];

export const tagColors = ["BLUE", "BROWN", "CYAN", "DEEP_ORANGE", "GREEN", "INDIGO", "LIME", "ORANGE", "PINK",
  "PURPLE", "TEAL"];

/** The members of a template that hold a value: exactly one per value object. */
export const valueKinds = ["value", "useInAppDefault", "personalizationValue", "rolloutValue", "experimentValue"];

/** Fills in the collections a template may leave out, so the editor can rely on them. */
export function normalize(template) {
  if (!Array.isArray(template.conditions)) template.conditions = [];
  if (!isObject(template.parameters)) template.parameters = {};
  if (!isObject(template.parameterGroups)) template.parameterGroups = {};
  for (const group of Object.values(template.parameterGroups)) {
    if (!isObject(group.parameters)) group.parameters = {};
  }
  return template;
}

export function isObject(value) {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** Every parameter, top level first, then by group name; each sorted by key. */
export function allParameters(template) {
  const entries = Object.keys(template.parameters).sort().map((key) => entry(template, key, null));
  for (const group of Object.keys(template.parameterGroups).sort()) {
    for (const key of Object.keys(template.parameterGroups[group].parameters).sort()) {
      entries.push(entry(template, key, group));
    }
  }
  return entries;
}

function entry(template, key, group) {
  const parameter = group === null ? template.parameters[key] : template.parameterGroups[group].parameters[key];
  return { key, group, parameter, path: parameterPath(key, group) };
}

/** The JSON path the server's validator names this parameter by. */
export function parameterPath(key, group) {
  return group === null ? `parameters.${key}` : `parameterGroups.${group}.parameters.${key}`;
}

function container(template, group) {
  return group === null ? template.parameters : template.parameterGroups[group].parameters;
}

export function hasKey(template, key) {
  return allParameters(template).some((item) => item.key === key);
}

export function addParameter(template, key, group = null) {
  container(template, group)[key] = { defaultValue: { value: "" }, valueType: "STRING" };
}

export function removeParameter(template, key, group) {
  delete container(template, group)[key];
}

/** Renames a key or moves it to another group, keeping the parameter object itself. */
export function moveParameter(template, key, group, newKey, newGroup) {
  const parameter = container(template, group)[key];
  delete container(template, group)[key];
  container(template, newGroup)[newKey] = parameter;
}

/** Renames a condition and every conditional value that names it. */
export function renameCondition(template, oldName, newName) {
  for (const condition of template.conditions) if (condition.name === oldName) condition.name = newName;
  for (const { parameter } of allParameters(template)) {
    const values = parameter.conditionalValues;
    if (values && Object.hasOwn(values, oldName)) {
      values[newName] = values[oldName];
      delete values[oldName];
    }
  }
}

/** Removes a condition and the conditional values that name it. */
export function removeCondition(template, index) {
  const [removed] = template.conditions.splice(index, 1);
  for (const { parameter } of allParameters(template)) {
    if (parameter.conditionalValues) delete parameter.conditionalValues[removed.name];
  }
}

/** Which member a value object uses (`value`, `useInAppDefault`, `rolloutValue`…), or "". */
export function valueKind(value) {
  if (!isObject(value)) return "";
  return valueKinds.find((kind) => Object.hasOwn(value, kind)) || "";
}

/** A short reading of a value for summaries. */
export function describeValue(value) {
  switch (valueKind(value)) {
    case "value": return value.value === "" ? "(empty string)" : value.value;
    case "useInAppDefault": return "(in-app default)";
    case "": return "(no value)";
    default: return `(${valueKind(value)})`;
  }
}

/** JSON with sorted keys: equal templates give equal text, whatever their member order. */
export function canonicalJSON(value) {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value) {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (!isObject(value)) return value;
  return Object.fromEntries(Object.keys(value).sort().map((key) => [key, sortKeys(value[key])]));
}

/** The template without its output-only members, for comparing and publishing. */
export function content(template) {
  const copy = structuredClone(template);
  delete copy.version;
  delete copy.etag;
  return copy;
}

/**
 * What changed from `old` to `new`, in the shape of the server's `:diff` answer (names, with
 * what added and removed items hold in `added` and `removed`, and each changed conditional
 * value's from and to), so one renderer shows both: the review before publishing or proposing,
 * a change request, a kept draft, someone else's version.
 */
export function diffTemplates(old, neu) {
  old = normalize(content(old));
  neu = normalize(content(neu));
  const oldParameters = byKey(old);
  const newParameters = byKey(neu);
  const diff = {
    addedParameters: Object.keys(newParameters).filter((key) => !oldParameters[key]).sort(),
    removedParameters: Object.keys(oldParameters).filter((key) => !newParameters[key]).sort(),
    changedParameters: [],
    addedConditions: [], removedConditions: [], changedConditions: [],
    addedGroups: [], removedGroups: [], changedGroups: [],
  };
  for (const key of Object.keys(newParameters).sort()) {
    const before = oldParameters[key];
    const after = newParameters[key];
    if (!before) continue;
    const change = { key };
    setChange(change, "defaultValue", before.parameter.defaultValue, after.parameter.defaultValue);
    setChange(change, "valueType", before.parameter.valueType || "STRING", after.parameter.valueType || "STRING");
    setChange(change, "description", before.parameter.description, after.parameter.description);
    setChange(change, "group", before.group, after.group);
    const values = conditionalValuesChange(before.parameter.conditionalValues || {}, after.parameter.conditionalValues || {});
    if (values) change.conditionalValues = values;
    if (Object.keys(change).length > 1) diff.changedParameters.push(change);
  }
  const oldConditions = new Map(old.conditions.map((condition) => [condition.name, condition]));
  const newConditions = new Map(neu.conditions.map((condition) => [condition.name, condition]));
  diff.addedConditions = [...newConditions.keys()].filter((name) => !oldConditions.has(name));
  diff.removedConditions = [...oldConditions.keys()].filter((name) => !newConditions.has(name));
  const held = (parameters, conditions, groups, keys, names, groupNames) => ({
    parameters: keys.map((key) => ({ key, ...(parameters[key].group === null ? {} : { group: parameters[key].group }), ...parameters[key].parameter })),
    conditions: names.map((name) => structuredClone(conditions.get(name))),
    groups: groupNames.map((name) => ({ name, ...(groups[name].description === undefined ? {} : { description: groups[name].description }) })),
  });
  for (const [name, after] of newConditions) {
    const before = oldConditions.get(name);
    if (!before) continue;
    const change = { name };
    for (const member of ["expression", "condition", "tagColor"]) setChange(change, member, before[member], after[member]);
    if (Object.keys(change).length > 1) diff.changedConditions.push(change);
  }
  const oldOrder = [...oldConditions.keys()].filter((name) => newConditions.has(name));
  const newOrder = [...newConditions.keys()].filter((name) => oldConditions.has(name));
  if (canonicalJSON(oldOrder) !== canonicalJSON(newOrder)) diff.conditionOrder = { from: oldOrder, to: newOrder };
  const oldGroups = old.parameterGroups;
  const newGroups = neu.parameterGroups;
  diff.addedGroups = Object.keys(newGroups).filter((name) => !oldGroups[name]).sort();
  diff.removedGroups = Object.keys(oldGroups).filter((name) => !newGroups[name]).sort();
  diff.added = held(newParameters, newConditions, newGroups, diff.addedParameters, diff.addedConditions, diff.addedGroups);
  diff.removed = held(oldParameters, oldConditions, oldGroups, diff.removedParameters, diff.removedConditions, diff.removedGroups);
  for (const name of Object.keys(newGroups).sort()) {
    if (!oldGroups[name]) continue;
    const change = { name };
    setChange(change, "description", oldGroups[name].description, newGroups[name].description);
    if (change.description) diff.changedGroups.push(change);
  }
  return diff;
}

function byKey(template) {
  const result = {};
  for (const item of allParameters(template)) if (!result[item.key]) result[item.key] = item;
  return result;
}

function setChange(change, member, before, after) {
  if (canonicalJSON(before ?? null) === canonicalJSON(after ?? null)) return;
  change[member] = {};
  if (before !== undefined && before !== null) change[member].from = before;
  if (after !== undefined && after !== null) change[member].to = after;
}

function conditionalValuesChange(before, after) {
  if (canonicalJSON(before) === canonicalJSON(after)) return null;
  const change = {
    added: Object.keys(after).filter((name) => !Object.hasOwn(before, name)).sort(),
    removed: Object.keys(before).filter((name) => !Object.hasOwn(after, name)).sort(),
    changed: Object.keys(after).filter((name) => Object.hasOwn(before, name)
      && canonicalJSON(before[name]) !== canonicalJSON(after[name])).sort(),
    values: {},
  };
  for (const name of [...change.added, ...change.removed, ...change.changed]) {
    change.values[name] = { from: before[name] ?? null, to: after[name] ?? null };
  }
  return change;
}

/** Conditions by name → the keys of the parameters with a value for it, in one pass. */
export function conditionUsers(template) {
  const users = new Map();
  for (const { key, parameter } of allParameters(template)) {
    for (const name of Object.keys(parameter.conditionalValues || {})) {
      if (!users.has(name)) users.set(name, []);
      users.get(name).push(key);
    }
  }
  return users;
}

// The server's reading of NUMBER (ParameterValueType+Checking.swift): sign, digits with an
// optional fraction, optional exponent; no nan, inf or hexadecimal.
const numberPattern = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** Why `text` is not a value of `type`, or "" when it is (the same rules as the server). */
export function typeProblem(type, text) {
  const shown = text.length > 40 ? `'${text.slice(0, 40)}…'` : `'${text}'`;
  if (type === "BOOLEAN" && text !== "true" && text !== "false") return `${shown} is not a BOOLEAN value; use true or false`;
  if (type === "NUMBER" && !(numberPattern.test(text) && Number.isFinite(Number(text)))) return `${shown} is not a NUMBER value`;
  if (type === "JSON") {
    try {
      JSON.parse(text);
    } catch (error) {
      return `Not valid JSON: ${error.message}`;
    }
  }
  return "";
}

/** Every plain value that does not fit its parameter's type: [{path, message}]. */
export function typeProblems(template) {
  const problems = [];
  for (const { parameter, path } of allParameters(template)) {
    const type = parameter.valueType || "STRING";
    if (type === "STRING") continue;
    const values = [["defaultValue", parameter.defaultValue],
      ...Object.entries(parameter.conditionalValues || {}).map(([name, value]) => [`conditionalValues.${name}`, value])];
    for (const [member, value] of values) {
      if (valueKind(value) !== "value") continue;
      const message = typeProblem(type, value.value);
      if (message) problems.push({ path: `${path}.${member}.value`, message });
    }
  }
  return problems;
}

/** What the filter searches in a parameter: key, group, description, values and condition names. */
export function searchText({ key, group, parameter }) {
  const parts = [key, group ?? "", parameter.description ?? "", describeValue(parameter.defaultValue)];
  for (const [name, value] of Object.entries(parameter.conditionalValues || {})) parts.push(name, describeValue(value));
  return parts.join("\n").toLowerCase();
}
