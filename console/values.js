// The editor of one parameter value (default or conditional): plain value, in-app default,
// none, or a rollout/personalization/experiment value kept exactly as it was published.
import { button, el, field, replace, select, setIssue } from "./dom.js";
import { edited, registerField } from "./session.js";
import { valueKind } from "./template.js";

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

function valueInput(value, type, path, write) {
  if (type === "JSON") return jsonInput(value.value, `${path}.value`, "Value (JSON)", write);
  const input = el("input", {
    type: "text", value: value.value, spellcheck: false,
    inputMode: type === "NUMBER" ? "decimal" : undefined,
    list: type === "BOOLEAN" ? "boolean-values" : undefined,
    on: { input: (event) => write(event.target.value) },
  });
  const wrapper = field("Value", input, { hint: type === "BOOLEAN" ? "true or false" : undefined });
  registerField(`${path}.value`, wrapper);
  return wrapper;
}

/** A JSON textarea that says at once, beside itself, whether its text parses. */
export function jsonInput(text, path, label, write) {
  const area = el("textarea", { class: "json", rows: Math.min(12, Math.max(3, text.split("\n").length)), spellcheck: false });
  area.value = text;
  const wrapper = field(label, area);
  const check = () => {
    try {
      JSON.parse(area.value);
      setIssue(wrapper, "");
      return true;
    } catch (error) {
      setIssue(wrapper, `Not valid JSON: ${error.message}`);
      return false;
    }
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
    edited();
  });
  const wrapper = field("Description", area, { wide: true });
  registerField(`${path}.description`, wrapper);
  return wrapper;
}
