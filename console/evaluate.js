// The Evaluate view: what a client with this app id, version, platform, country, language,
// user properties, custom signals and instance id gets from the published template, and which
// condition decided each entry (the `:evaluate` endpoint); and the same answer as an
// OpenFeature (OFREP) provider gets it, the instance id as its targeting key.
import { call, templatePath } from "./api.js";
import { el, field, replace, select, setIssue, tableRegion } from "./dom.js";
import * as session from "./session.js";
import { conditionChip } from "./parameters.js";

let form;
let output;

const textFields = [
  ["appId", "App ID", "e.g. 1:123456789012:ios:0a1b2c3d (its platform is used when Platform is automatic)"],
  ["appVersion", "App version", "e.g. 2.3.0"],
  ["countryCode", "Country", "ISO code, e.g. DE"],
  ["languageCode", "Language", "e.g. de-DE"],
  ["appInstanceId", "Instance ID", "Decides percent conditions"],
];

export function mount(container) {
  const inputs = {};
  const fields = textFields.map(([name, label, hint]) => {
    inputs[name] = el("input", { type: "text", name, autocomplete: "off", spellcheck: false });
    return field(label, inputs[name], { hint });
  });
  const platform = select([["", "Automatic (from the app ID)"], ["ios", "iOS"], ["android", "Android"], ["web", "Web"]], "", { name: "platform" });
  const properties = el("textarea", { name: "analyticsUserProperties", rows: 3, spellcheck: false });
  const signals = el("textarea", { name: "customSignals", rows: 3, spellcheck: false });
  const propertiesField = field("User properties", properties, { hint: "One per line: name=value" });
  const signalsField = field("Custom signals", signals, { hint: "One per line: name=value" });
  output = el("div", { class: "evaluation", tabIndex: -1, "aria-live": "polite" });
  form = el("form", {
    class: "grid",
    on: {
      submit: (event) => {
        event.preventDefault();
        const body = {};
        for (const [name, input] of Object.entries(inputs)) if (input.value.trim()) body[name] = input.value.trim();
        if (platform.value) body.platform = platform.value;
        const parsed = [[propertiesField, "analyticsUserProperties"], [signalsField, "customSignals"]].every(([node, name]) => {
          const map = parsePairs(node.control.value);
          setIssue(node, map ? "" : "Write each entry as name=value on its own line.");
          if (map && Object.keys(map).length) body[name] = map;
          return Boolean(map);
        });
        if (parsed) evaluate(body);
      },
    },
  }, ...fields, field("Platform", platform), propertiesField, signalsField,
  el("div", { class: "actions wide" }, el("button", { type: "submit", class: "primary", text: "Evaluate for this client" })));
  replace(container,
    el("h2", { tabIndex: -1, text: "What does this client get, and why?" }),
    el("p", { class: "hint", text: "Evaluates the published template (not the draft) for the client described here." }),
    form, output);
}

/** `a=1\nb = two` → {a: "1", b: "two"}; null when a non-empty line has no `=`. */
function parsePairs(text) {
  const map = {};
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    const at = line.indexOf("=");
    if (at <= 0) return null;
    map[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  return map;
}

async function evaluate(body) {
  const { project, namespace } = session.scope();
  try {
    const { body: answer } = await call("POST", templatePath(project, namespace, "evaluate"), { body });
    show(answer);
  } catch (error) {
    replace(output, el("p", { class: "result error", text: error.message }));
  }
  output.focus();
}

const effects = {
  inAppDefault: "left out: the app keeps its in-app default",
  noValue: "left out: no value",
};

function show(answer) {
  const explanation = answer.explanation || { conditions: [], parameters: [] };
  replace(output,
    el("h3", { text: `Published version ${answer.templateVersion}` }),
    tableRegion(el("table", {},
      el("caption", { text: "Entries the client gets" }),
      el("thead", {}, el("tr", {}, ...["Key", "Value", "Decided by"].map((text) => el("th", { scope: "col", text })))),
      el("tbody", {}, ...explanation.parameters.map((parameter) => el("tr", { dataset: { key: parameter.key } },
        el("th", { scope: "row", text: parameter.key }),
        el("td", { class: parameter.effect === "value" ? "value" : "muted", text: parameter.effect === "value" ? parameter.value : effects[parameter.effect] ?? parameter.effect }),
        el("td", {}, decidedBy(parameter)))))), "Entries the client gets"),
    tableRegion(el("table", {},
      el("caption", { text: "Conditions, in priority order" }),
      el("thead", {}, el("tr", {}, el("th", { scope: "col", text: "Condition" }), el("th", { scope: "col", text: "True for this client" }))),
      el("tbody", {}, ...explanation.conditions.map((condition) => el("tr", {},
        el("th", { scope: "row" }, conditionChip(condition.name)),
        el("td", { text: condition.value ? "yes" : "no" }))))), "Conditions for this client"),
    ...openFeature(answer.openFeature));
}

/** The OFREP bulk answer's flags: value (none for a code default), reason and variant. */
function openFeature(answer) {
  if (!answer) return [];
  return [tableRegion(el("table", { class: "openfeature" },
    el("caption", { text: `As OpenFeature (OFREP) providers get it: version ${answer.metadata.version}` }),
    el("thead", {}, el("tr", {}, ...["Flag", "Value", "Reason", "Variant"].map((text) => el("th", { scope: "col", text })))),
    el("tbody", {}, ...answer.flags.map((flag) => el("tr", { dataset: { flag: flag.key } },
      el("th", { scope: "row", text: flag.key }),
      el("td", { class: "value", text: "value" in flag ? JSON.stringify(flag.value) : flag.errorCode ?? "(code default)" }),
      el("td", { text: flag.reason ?? "" }),
      el("td", { text: flag.variant ?? "" }))))), "As OpenFeature providers get it")];
}

function decidedBy(parameter) {
  if (parameter.source === "conditionalValue") {
    const parts = ["condition ", conditionChip(parameter.condition)];
    if (parameter.rollout) parts.push(`, rollout ${parameter.rollout.rolloutId}`);
    if (parameter.experiment) parts.push(`, experiment ${parameter.experiment.experimentId} variant ${parameter.experiment.variantId}`);
    if (parameter.personalizationId) parts.push(`, personalization ${parameter.personalizationId} (its default is served)`);
    return el("span", {}, ...parts);
  }
  if (parameter.source === "defaultValue") return "default value (no true condition has a value)";
  return "nothing (no true condition has a value, and there is no default)";
}
