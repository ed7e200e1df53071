// The Groups view: parameter groups (name, description); they only organise the list, clients
// read every key flat. Deleting a group keeps its parameters, outside any group.
import { button, el, field, replace, setIssue } from "./dom.js";
import * as session from "./session.js";
import { allParameters, moveParameter } from "./template.js";
import { descriptionEditor } from "./values.js";

let list;

export function mount(container) {
  const name = el("input", { type: "text", autocomplete: "off", spellcheck: false });
  const nameField = field("New group name", name);
  const add = (event) => {
    event.preventDefault();
    const text = name.value.trim();
    const groups = session.draft().parameterGroups;
    if (!text) return setIssue(nameField, "Enter a name.");
    if (Object.hasOwn(groups, text)) return setIssue(nameField, `A group '${text}' already exists.`);
    setIssue(nameField, "");
    groups[text] = { parameters: {} };
    name.value = "";
    session.restructured();
  };
  list = el("div", { class: "cards" });
  replace(container,
    el("h2", { tabIndex: -1, text: "Parameter groups" }),
    el("p", { class: "hint", text: "Groups organise parameters; put a parameter in a group from its card under Parameters." }),
    list,
    el("form", { class: "toolbar", on: { submit: add } }, nameField, el("button", { type: "submit", text: "Add group" })));
  for (const event of ["replaced", "structure"]) session.events.addEventListener(event, render);
}

export function render() {
  const draft = session.draft();
  if (!draft || !list) return;
  const names = Object.keys(draft.parameterGroups).sort();
  replace(list, ...names.map((name) => groupCard(draft, name)));
  if (names.length === 0) list.append(el("p", { class: "hint", text: "No groups." }));
}

function groupCard(draft, name) {
  const group = draft.parameterGroups[name];
  const path = `parameterGroups.${name}`;
  const nameInput = el("input", { type: "text", value: name, spellcheck: false, autocomplete: "off" });
  const nameField = field("Name", nameInput);
  nameInput.addEventListener("change", () => {
    const text = nameInput.value.trim();
    if (text === name) return;
    if (!text) return setIssue(nameField, "A name must not be empty.");
    if (Object.hasOwn(draft.parameterGroups, text)) return setIssue(nameField, `A group '${text}' already exists.`);
    draft.parameterGroups[text] = group;
    delete draft.parameterGroups[name];
    session.restructured();
  });
  session.registerField(path, nameField);
  const descriptionField = descriptionEditor(group, path);
  const keys = Object.keys(group.parameters).sort();
  return el("article", { class: "card group" },
    el("div", { class: "row" }, nameField),
    descriptionField,
    el("p", { class: "hint", text: keys.length ? `Parameters: ${keys.join(", ")}` : "No parameters in this group." }),
    el("div", { class: "actions" }, button(`Delete group ${name}`, () => {
      const clash = keys.find((key) => allParameters(draft).filter((item) => item.key === key).length > 1
        || Object.hasOwn(draft.parameters, key));
      if (clash) return setIssue(nameField, `'${clash}' is also defined outside the group: resolve that first.`);
      for (const key of keys) moveParameter(draft, key, name, key, null);
      delete draft.parameterGroups[name];
      session.restructured();
    }, { class: "danger" })));
}
