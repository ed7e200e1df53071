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

/** What the filter searches in a parameter: key, group, description, values and condition names. */
export function searchText({ key, group, parameter }) {
  const parts = [key, group ?? "", parameter.description ?? "", describeValue(parameter.defaultValue)];
  for (const [name, value] of Object.entries(parameter.conditionalValues || {})) parts.push(name, describeValue(value));
  return parts.join("\n").toLowerCase();
}
