// The editor of one parameter value (default or conditional): plain value, in-app default,
// none, or a rollout/personalization/experiment value kept exactly as it was published.
import { button, el, field, replace, select, setIssue } from "./dom.js";
import { edited, registerField } from "./session.js";
import { valueKind } from "./template.js";
import { checkAsTyped } from "./checks.js";

/** A check of `text` as a value of `type`, as typed, by the server's rules (a template holding only that value). */
function valueCheck(type, text, wrapper) {
  return checkAsTyped(() => ({ parameters: { value: { defaultValue: { value: text() }, valueType: type } } }),
    (problem) => setIssue(wrapper, problem));
}

const keptLabels = {
  rolloutValue: "Rollout value (kept as published)",
  personalizationValue: "Personalization value (kept as published)",
  experimentValue: "Experiment value (kept as published)",
};

/**
 * A fieldset editing `value` (a value object or undefined) of a parameter of `type`.
 * `onChange(next)` receives the new value object, or undefined for "no value".
 */
export function valueEditor({ legend, value, type, path, allowNone, onChange }) {
  const box = el("fieldset", { class: "value-editor" });
  const original = value;
  let current = value;
  const render = () => {
    const kind = valueKind(current);
    const options = [["value", "Value"], ["useInAppDefault", "Use in-app default"]];
    if (allowNone) options.push(["", "No default value"]);
    const originalKind = valueKind(original);
    if (keptLabels[originalKind]) options.push([originalKind, keptLabels[originalKind]]);
    const mode = select(options, kind, {
      on: {
        change: (event) => {
          const chosen = event.target.value;
          if (chosen === valueKind(original)) current = original;
          else if (chosen === "value") current = { value: "" };
          else if (chosen === "useInAppDefault") current = { useInAppDefault: true };
          else if (chosen === "") current = undefined;
          onChange(current);
          render();
          box.querySelector("select").focus();
        },
      },
    });
    const modeField = field("Kind of value", mode);
    registerField(path, modeField);
    const children = [el("legend", { text: legend }), modeField];
    if (kind === "value") children.push(valueInput(current, type, path, (text) => {
      current.value = text;
      onChange(current);
    }));
    else if (keptLabels[kind]) {
      children.push(el("pre", { class: "json", text: JSON.stringify(current[kind], null, 2) }));
    }
    replace(box, ...children);
  };
  render();
  return box;
}

/** The control for a plain value: a switch for BOOLEAN, a checked number field for NUMBER, the JSON editor for JSON. */
function valueInput(value, type, path, write) {
  if (type === "JSON") return jsonInput(value.value, `${path}.value`, "Value (JSON)", write);
  if (type === "BOOLEAN") return booleanSwitch(value, path, write);
  const input = el("input", {
    type: "text", value: value.value, spellcheck: false, autocomplete: "off",
    inputMode: type === "NUMBER" ? "decimal" : undefined,
  });
  const wrapper = field("Value", input, { hint: type === "NUMBER" ? "A number, e.g. 42, -1.5 or 2e3" : undefined });
  // Checked as typed, so a typo shows before Validate; a server message here is replaced too.
  const check = type === "NUMBER" ? valueCheck(type, () => input.value, wrapper) : () => {};
  input.addEventListener("input", () => {
    check();
    write(input.value);
  });
  registerField(`${path}.value`, wrapper);
  return wrapper;
}

/** A BOOLEAN value as a switch: it can hold only true or false. */
function booleanSwitch(value, path, write) {
  const box = el("input", { type: "checkbox", role: "switch", checked: value.value === "true" });
  const state = el("span", { class: "switch-state", text: value.value === "true" ? "true" : "false", "aria-hidden": "true" });
  const wrapper = field("Value", box);
  wrapper.querySelector("label").append(" ", state);
  wrapper.classList.add("switch");
  let switched = false;
  box.addEventListener("change", () => {
    switched = true;
    state.textContent = box.checked ? "true" : "false";
    setIssue(wrapper, "");
    write(box.checked ? "true" : "false");
  });
  // A value the switch cannot show (one published through the API, or none yet): the server
  // says what is wrong with it until it is switched.
  if (value.value !== "true" && value.value !== "false") {
    checkAsTyped(() => ({ parameters: { value: { defaultValue: { value: value.value }, valueType: "BOOLEAN" } } }),
      (problem) => setIssue(wrapper, switched ? "" : problem), 0)();
  }
  registerField(`${path}.value`, wrapper);
  return wrapper;
}

/** A JSON textarea that says at once, beside itself, whether its text parses. */
export function jsonInput(text, path, label, write) {
  const area = el("textarea", { class: "json", rows: Math.min(12, Math.max(3, text.split("\n").length)), spellcheck: false });
  area.value = text;
  const wrapper = field(label, area);
  // Whether the text parses is JSON's own rule, checked here at once; what the value must be
  // besides is the server's (Validate and the review say).
  const check = () => {
    let problem = "";
    try {
      JSON.parse(area.value);
    } catch (error) {
      problem = `Not valid JSON: ${error.message}`;
    }
    setIssue(wrapper, problem);
    return !problem;
  };
  area.addEventListener("input", () => {
    check();
    write(area.value);
  });
  const format = button("Format JSON", () => {
    if (!check()) return;
    area.value = JSON.stringify(JSON.parse(area.value), null, 2);
    write(area.value);
  }, { class: "small" });
  wrapper.append(format);
  if (text !== "") check();
  registerField(path, wrapper);
  return wrapper;
}

/** The `description` of a parameter or group (`owner`), left out of the JSON when empty. */
export function descriptionEditor(owner, path) {
  const area = el("textarea", { rows: 2 });
  area.value = owner.description ?? "";
  area.addEventListener("input", () => {
    if (area.value) owner.description = area.value;
    else delete owner.description;
    edited(`description of ${path}`);
  });
  const wrapper = field("Description", area, { wide: true });
  registerField(`${path}.description`, wrapper);
  return wrapper;
}
