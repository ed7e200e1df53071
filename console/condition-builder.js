// The rule builder under a condition's expression: pick a field the template's namespace
// knows, an operator that fits it and a value; it writes the clause into the expression, which
// stays editable as text. Client templates know the device, app, platform, country,
// language, user properties, custom signals, percent (seed and slider) and dates; server
// templates only percent and custom signals (docs/compatibility.md).
import { kindOf } from "./api.js";
import { button, el, field, replace, select } from "./dom.js";

/** A quoted string of the grammar: backslash and quote escaped, every other character kept. */
function quote(text) {
  return `'${text.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;
}

function list(text) {
  const items = text.split(",").map((item) => item.trim()).filter(Boolean);
  return `[${items.map(quote).join(", ")}]`;
}

const stringMethods = [["contains", "contains any of"], ["notContains", "contains none of"],
  ["exactlyMatches", "is exactly one of"], ["matches", "matches a regular expression"]];
const versionComparisons = [[">=", "version ≥"], [">", "version >"], ["<=", "version ≤"], ["<", "version <"],
  ["==", "version ="], ["!=", "version ≠"]];
const dateComparisons = [["<", "before"], ["<=", "at or before"], [">", "after"], [">=", "at or after"]];

/** `element.method([list])` for string methods and version comparisons on app.id/version/build. */
function methodRule(element) {
  return (operator, value) => (["==", "!="].includes(operator) && element === "app.id"
    ? `${element} ${operator} ${quote(value)}`
    : `${element}.${operator}(${list(value)})`);
}

function keyedRule(element) {
  return (operator, value, key) => {
    const subject = `${element}[${quote(key)}]`;
    if (operator.startsWith("version")) return `version(${subject}) ${operator.slice(7)} ${quote(value)}`;
    if (operator.startsWith("number")) return `${subject} ${operator.slice(6)} ${Number(value)}`;
    if (operator === "in") return `${subject} in ${list(value)}`;
    if (operator === "==" || operator === "!=") return `${subject} ${operator} ${quote(value)}`;
    return `${subject}.${operator}(${list(value)})`;
  };
}

function keyedOperators(server) {
  return [["==", "is"], ...(server ? [] : [["!=", "is not"]]), ["in", "is one of"], ...stringMethods,
    ["number<", "number <"], ["number<=", "number ≤"], ["number>", "number >"], ["number>=", "number ≥"],
    ["version>=", "version ≥"], ["version<", "version <"]];
}

function dateRule(element) {
  return (operator, value, key, zone) => {
    const when = value.length === 16 ? `${value}:00` : value;
    return `${element} ${operator} dateTime(${quote(when)}${zone ? `, ${quote(zone)}` : ""})`;
  };
}

function percentRule(operator, value, key, zone, seed, upper) {
  const subject = seed ? `percent(${quote(seed)})` : "percent";
  return operator === "between" ? `${subject} between ${Number(value)} and ${Number(upper)}` : `${subject} ${operator} ${Number(value)}`;
}

/** Every field: its label, namespaces, operators, kind of value, and how it becomes a clause. */
const fields = [
  { id: "platform", label: "Platform (device.os)", operators: [["==", "is"], ["!=", "is not"]], value: "platform",
    rule: (operator, value) => `device.os ${operator} ${quote(value)}` },
  { id: "appId", label: "App ID (app.id)", operators: [["==", "is"], ["!=", "is not"], ...stringMethods], value: "text",
    hint: "e.g. 1:123456789012:ios:0a1b2c3d", rule: methodRule("app.id") },
  { id: "appVersion", label: "App version (app.version)", operators: [...versionComparisons, ...stringMethods], value: "text",
    hint: "e.g. 2.3.0; several, comma-separated, for 'one of'", rule: methodRule("app.version") },
  { id: "appBuild", label: "Build number (app.build)", operators: [...versionComparisons, ...stringMethods], value: "text",
    hint: "e.g. 4512", rule: methodRule("app.build") },
  { id: "country", label: "Country (device.country)", operators: [["in", "is one of"]], value: "text",
    hint: "ISO codes, comma-separated: US, DE", rule: (operator, value) => `device.country in ${list(value)}` },
  { id: "language", label: "Language (device.language)", operators: [["in", "is one of"]], value: "text",
    hint: "Language tags, comma-separated: en-US, de", rule: (operator, value) => `device.language in ${list(value)}` },
  { id: "userProperty", label: "User property (app.userProperty)", keyed: true, operators: keyedOperators(false), value: "text",
    rule: keyedRule("app.userProperty") },
  { id: "customSignal", label: "Custom signal (app.customSignal)", keyed: true, server: true, operators: keyedOperators(false),
    serverOperators: keyedOperators(true), value: "text", rule: keyedRule("app.customSignal") },
  { id: "percent", label: "User in random percentile (percent)", server: true,
    operators: [["<=", "at most"], [">", "above"], ["between", "between"]], value: "percent", rule: percentRule },
  { id: "installationId", label: "Installation ID (app.firebaseInstallationId)", operators: [["in", "is one of"]], value: "text",
    hint: "Up to 50, comma-separated", rule: (operator, value) => `app.firebaseInstallationId in ${list(value)}` },
  { id: "dateTime", label: "Date and time (dateTime)", operators: dateComparisons, value: "date", rule: dateRule("dateTime") },
  { id: "firstOpen", label: "First open (app.firstOpenTimestamp)", operators: dateComparisons, value: "date",
    rule: dateRule("app.firstOpenTimestamp") },
];

/** What the rule field's hint and the builder's help say for a namespace. */
export function ruleHelp(namespace) {
  return kindOf(namespace) === "firebase-server"
    ? { example: "e.g. percent('checkout') <= 10 && app.customSignal['plan'] == 'pro'",
      help: "Server templates take percent and app.customSignal rules only, joined with && and || (no !, no != on a signal)." }
    : { example: "e.g. device.os == 'ios' && app.version.>=(['2.0'])",
      help: "Rules join with && (and) and || (or); ! negates; parentheses group. Versions compare with methods: app.version.>=(['2.0'])." };
}

/**
 * The builder for `namespace`; `add(clause, joiner)` receives a clause such as
 * `device.os == 'ios'` and "&&" or "||".
 */
export function conditionBuilder(namespace, add) {
  const server = kindOf(namespace) === "firebase-server";
  const known = fields.filter((item) => !server || item.server);
  const fieldSelect = select(known.map((item) => [item.id, item.label]), known[0].id);
  const operatorSelect = el("select");
  const key = el("input", { type: "text", autocomplete: "off", spellcheck: false });
  const value = el("input", { type: "text", autocomplete: "off", spellcheck: false });
  const platform = select([["ios", "iOS"], ["android", "Android"], ["web", "Web"]], "ios");
  const seed = el("input", { type: "text", autocomplete: "off", spellcheck: false, maxLength: 32 });
  const slider = el("input", { type: "range", min: 0, max: 100, step: 0.5, value: "10" });
  const percentText = el("input", { type: "number", min: 0, max: 100, step: "any", value: "10" });
  const upper = el("input", { type: "number", min: 0, max: 100, step: "any", value: "20" });
  const when = el("input", { type: "datetime-local" });
  const zone = el("input", { type: "text", autocomplete: "off", spellcheck: false, value: "UTC" });
  const joiner = select([["&&", "and (&&)"], ["||", "or (||)"]], "&&");
  const preview = el("code", { class: "builder-preview" });
  const inputs = el("div", { class: "row" });
  const help = ruleHelp(namespace);

  const current = () => known.find((item) => item.id === fieldSelect.value);
  const clause = () => {
    const chosen = current();
    const operator = operatorSelect.value;
    const text = { platform: platform.value, percent: percentText.value, date: when.value }[chosen.value] ?? value.value.trim();
    if (chosen.keyed && !key.value.trim()) return "";
    if (text === "") return "";
    return chosen.rule(operator, text, key.value.trim(), zone.value.trim(), seed.value.trim(), upper.value);
  };
  const refresh = () => {
    preview.textContent = clause() || "(fill in the fields)";
  };
  const layout = () => {
    const chosen = current();
    const operators = server && chosen.serverOperators ? chosen.serverOperators : chosen.operators;
    replace(operatorSelect, ...operators.map(([name, label]) => el("option", { value: name, text: label })));
    const parts = [];
    if (chosen.keyed) parts.push(field(chosen.id === "customSignal" ? "Signal key" : "Property name", key));
    if (chosen.value === "platform") parts.push(field("Platform", platform));
    if (chosen.value === "text") parts.push(field("Value", value, { hint: chosen.hint }));
    if (chosen.value === "date") parts.push(field("Date and time", when), field("Time zone", zone, { hint: "e.g. UTC, Europe/Berlin" }));
    if (chosen.value === "percent") {
      parts.push(field("Seed", seed, { hint: "Up to 32 of A-Z a-z 0-9 - _ .; the same seed keeps users in the same buckets" }),
        field("Percent", slider), field("Percent (exact)", percentText));
      if (operatorSelect.value === "between") parts.push(field("Upper percent", upper));
    }
    replace(inputs, ...parts);
    refresh();
  };
  fieldSelect.addEventListener("change", layout);
  operatorSelect.addEventListener("change", () => (current().value === "percent" ? layout() : refresh()));
  slider.addEventListener("input", () => {
    percentText.value = slider.value;
    refresh();
  });
  percentText.addEventListener("input", () => {
    slider.value = percentText.value;
    refresh();
  });
  for (const input of [key, value, platform, seed, upper, when, zone]) input.addEventListener("input", refresh);
  platform.addEventListener("change", refresh);
  layout();
  return el("fieldset", { class: "builder" },
    el("legend", { text: "Add a rule" }),
    el("p", { class: "hint", text: help.help }),
    el("div", { class: "row" }, field("Field", fieldSelect), field("Operator", operatorSelect), field("Join with", joiner)),
    inputs,
    el("p", { class: "hint" }, "Adds: ", preview),
    button("Add rule", () => {
      const text = clause();
      if (text) add(text, joiner.value);
    }));
}
