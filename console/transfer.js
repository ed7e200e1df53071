// Import and export in the draft bar: a Firebase template export (a JSON file) read into the
// draft, and the draft downloaded as one.
import { button, download, el } from "./dom.js";
import * as session from "./session.js";
import { canonicalJSON, content, isObject } from "./template.js";

/** The Import… and Export buttons (and the hidden file input); `say(text, kind)` reports. */
export function transferButtons(say) {
  const fileInput = el("input", { type: "file", accept: ".json,application/json", hidden: true });
  fileInput.addEventListener("change", () => importFile(fileInput, say));
  return [
    button("Import…", () => fileInput.click(), { "aria-label": "Import a template file" }),
    button("Export", () => exportDraft(say), { "aria-label": "Export the template as a JSON file" }),
    fileInput,
  ];
}

async function importFile(fileInput, say) {
  const file = fileInput.files[0];
  fileInput.value = "";
  if (!file) return;
  let template;
  try {
    template = JSON.parse(await file.text());
  } catch (error) {
    say(`${file.name} is not JSON: ${error.message}`, "error");
    return;
  }
  const members = ["conditions", "parameters", "parameterGroups"];
  if (!isObject(template) || !members.some((name) => Object.hasOwn(template, name))) {
    say(`${file.name} is not a Remote Config template (no conditions, parameters or parameterGroups).`, "error");
    return;
  }
  session.replaceDraft(template, `import ${file.name}`);
  const draft = session.draft();
  const parameters = Object.keys(draft.parameters).length
    + Object.values(draft.parameterGroups).reduce((sum, group) => sum + Object.keys(group.parameters).length, 0);
  say(`Imported ${file.name}: ${parameters} parameters, ${draft.conditions.length} conditions. Review, then publish.`, "ok");
}

function exportDraft(say) {
  const { project, namespace } = session.scope();
  const number = session.base().version?.versionNumber ?? "0";
  const draft = content(session.draft());
  const edited = canonicalJSON(draft) !== canonicalJSON(content(session.base()));
  download(`remote-config-${project}-${namespace}-v${number}${edited ? "-edited" : ""}.json`, `${JSON.stringify(draft, null, 2)}\n`);
  say("Exported the template as a JSON file.");
}
