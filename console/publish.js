// The draft bar above every editing view: what the draft is based on, whether it changed,
// validate, publish (with the ETag it was loaded with), discard, import and export. When
// someone else published first, it shows what publishing would change in their version and
// offers to load theirs or publish anyway.
import { call, templatePath } from "./api.js";
import { renderDiff } from "./diff.js";
import { button, download, el, field, formatTime, replace } from "./dom.js";
import * as session from "./session.js";
import { canonicalJSON, content, diffTemplates, isObject } from "./template.js";

let status;
let description;
let result;
let issueList;
let conflict;
let fileInput;
let validateButton;
let publishButton;
let proposeButton;
let roleHint;

export function mount(container) {
  status = el("p", { class: "draft-status" });
  description = el("input", { type: "text", autocomplete: "off", maxLength: 256 });
  result = el("div", { class: "result", role: "status", "aria-live": "polite" });
  issueList = el("div", { class: "issues" });
  conflict = el("div", { class: "conflict", hidden: true });
  fileInput = el("input", { type: "file", accept: ".json,application/json", hidden: true, on: { change: importFile } });
  validateButton = button("Validate", () => publish({ validateOnly: true }));
  publishButton = button("Publish", () => publish({}), { class: "primary" });
  proposeButton = button("Propose for review", propose);
  roleHint = el("p", { class: "hint", hidden: true });
  replace(container,
    status,
    roleHint,
    el("div", { class: "toolbar" },
      field("Description of this version", description),
      validateButton,
      publishButton,
      proposeButton,
      button("Discard changes", discard),
      button("Import…", () => fileInput.click(), { "aria-label": "Import a template file" }),
      button("Export", exportDraft, { "aria-label": "Export the template as a JSON file" }),
      fileInput),
    result, issueList, conflict);
  for (const name of ["replaced", "structure", "edited"]) session.events.addEventListener(name, showStatus);
  for (const name of ["scope", "replaced", "policy"]) session.events.addEventListener(name, offerWhatTheRoleAllows);
  session.events.addEventListener("scope", loadPolicy);
  session.events.addEventListener("replaced", () => {
    conflict.hidden = true;
  });
  session.events.addEventListener("issues", showIssues);
}

/** The chosen template's approval policy, for what the bar offers. */
async function loadPolicy() {
  const { project, namespace } = session.scope();
  try {
    const { body } = await call("GET", `/v1/projects/${encodeURIComponent(project)}/namespaces/${encodeURIComponent(namespace)}/changePolicy`);
    session.setPolicy(body);
  } catch {
    // An older server without change control: publishing is offered as before.
  }
}

/**
 * Validate needs the editor role, publishing the publisher role (or editor, where the policy
 * lets editors publish); where the policy requires approvals, changes are proposed for review
 * instead (docs/access.md, docs/change-control.md).
 */
function offerWhatTheRoleAllows() {
  const policy = session.policy() || {};
  const approval = policy.requiredApprovals > 0;
  validateButton.disabled = !session.can("editor");
  publishButton.disabled = approval || !session.can(policy.editorsMayPublish ? "editor" : "publisher");
  proposeButton.disabled = !session.can("editor");
  const held = session.role() || "no role";
  roleHint.hidden = !publishButton.disabled;
  roleHint.textContent = approval
    ? `Publishing this template needs ${policy.requiredApprovals} approval${policy.requiredApprovals === 1 ? "" : "s"}: `
      + "propose your changes for review, then apply them from Changes once approved."
    : `You hold ${held} on this project: publishing needs the publisher role`
      + (validateButton.disabled ? ", validating the editor role." : ".");
}

/** Proposes the draft as a change request based on the version it was loaded from. */
async function propose() {
  const { project, namespace } = session.scope();
  const body = { template: content(session.draft()) };
  if (description.value.trim()) body.description = description.value.trim();
  say("Proposing…");
  try {
    const answer = await call("POST", `/v1/projects/${encodeURIComponent(project)}/namespaces/${encodeURIComponent(namespace)}/changeRequests`,
      { body, headers: { "If-Match": session.etag() } });
    session.setIssues([]);
    description.value = "";
    say(`Proposed change request #${answer.body.id}: it needs ${answer.body.requiredApprovals} approval`
      + `${answer.body.requiredApprovals === 1 ? "" : "s"}. Follow it in Changes.`, "ok");
  } catch (error) {
    if (error.issues.length) {
      session.setIssues(error.issues);
      return say(`The server refused the template: ${error.issues.length} problem${error.issues.length === 1 ? "" : "s"}, shown beside the fields.`, "error");
    }
    say(error.message, "error");
  }
}

function say(text, kind = "") {
  result.className = `result ${kind}`;
  result.textContent = text;
}

export function showStatus() {
  const template = session.base();
  if (!template) return;
  const version = template.version;
  const based = version?.versionNumber
    ? `Editing version ${version.versionNumber}, published ${formatTime(version.updateTime)} by ${version.updateUser?.email ?? "unknown"}`
    : "No version published yet";
  const dirty = session.isDirty();
  status.textContent = `${based}. ${dirty ? "Unpublished changes." : "No unpublished changes."}`;
  status.classList.toggle("dirty", dirty);
}

function publishBody() {
  const body = content(session.draft());
  if (description.value.trim()) body.version = { description: description.value.trim() };
  return body;
}

async function publish({ validateOnly = false, ifMatch = session.etag() }) {
  const { project, namespace } = session.scope();
  const path = templatePath(project, namespace) + (validateOnly ? "?validateOnly=true" : "");
  say(validateOnly ? "Validating…" : "Publishing…");
  try {
    const answer = await call("PUT", path, { body: publishBody(), headers: { "If-Match": ifMatch } });
    session.setIssues([]);
    if (validateOnly) return say("The server accepts this template.", "ok");
    description.value = "";
    session.adopt(answer.body, answer.etag);
    say(`Published version ${answer.body.version?.versionNumber ?? ""}.`, "ok");
  } catch (error) {
    if (error.isVersionMismatch) return showConflict();
    if (error.issues.length) {
      session.setIssues(error.issues);
      return say(`The server refused the template: ${error.issues.length} problem${error.issues.length === 1 ? "" : "s"}, shown beside the fields.`, "error");
    }
    say(error.message, "error");
  }
}

async function showConflict() {
  const { project, namespace } = session.scope();
  let theirs;
  try {
    theirs = await call("GET", templatePath(project, namespace));
  } catch (error) {
    return say(error.message, "error");
  }
  const version = theirs.body.version || {};
  const mine = session.base().version?.versionNumber ?? "0";
  say(`Not published: someone else published version ${version.versionNumber} since you loaded version ${mine}.`, "error");
  const hidePanel = () => {
    conflict.hidden = true;
  };
  replace(conflict,
    el("h3", { tabIndex: -1, text: "Someone else published first" }),
    el("p", {
      text: `Version ${version.versionNumber} was published by ${version.updateUser?.email ?? "unknown"} `
        + `at ${formatTime(version.updateTime)}${version.description ? ` (“${version.description}”)` : ""}. `
        + "Publishing your draft would make these changes to their version:",
    }),
    renderDiff(diffTemplates(theirs.body, session.draft())),
    el("div", { class: "actions" },
      button("Publish anyway", () => {
        hidePanel();
        publish({ ifMatch: theirs.etag });
      }, { class: "danger" }),
      button("Load their version (drops your changes)", () => {
        session.adopt(theirs.body, theirs.etag);
        say(`Loaded version ${version.versionNumber}.`, "ok");
      }),
      button("Keep editing", hidePanel)));
  conflict.hidden = false;
  conflict.querySelector("h3").focus();
}

function showIssues() {
  const issues = session.issues();
  if (issues.length === 0) return replace(issueList);
  replace(issueList, el("ul", {}, ...issues.map((issue) => {
    const node = issue.path ? session.fieldFor(issue.path) : null;
    return el("li", {},
      issue.path ? el("code", { text: issue.path }) : null, issue.path ? ": " : "", issue.message,
      node ? button("Show", () => session.reveal(node), { class: "small", "aria-label": `Show ${issue.path}` }) : null);
  })));
}

function discard() {
  session.adopt(session.base(), session.etag());
  say("Changes discarded.");
}

async function importFile() {
  const file = fileInput.files[0];
  fileInput.value = "";
  if (!file) return;
  let template;
  try {
    template = JSON.parse(await file.text());
  } catch (error) {
    return say(`${file.name} is not JSON: ${error.message}`, "error");
  }
  const members = ["conditions", "parameters", "parameterGroups"];
  if (!isObject(template) || !members.some((name) => Object.hasOwn(template, name))) {
    return say(`${file.name} is not a Remote Config template (no conditions, parameters or parameterGroups).`, "error");
  }
  session.replaceDraft(template);
  const draft = session.draft();
  const parameters = Object.keys(draft.parameters).length
    + Object.values(draft.parameterGroups).reduce((sum, group) => sum + Object.keys(group.parameters).length, 0);
  say(`Imported ${file.name}: ${parameters} parameters, ${draft.conditions.length} conditions. Review, then publish.`, "ok");
}

function exportDraft() {
  const { project, namespace } = session.scope();
  const number = session.base().version?.versionNumber ?? "0";
  const draft = content(session.draft());
  const edited = canonicalJSON(draft) !== canonicalJSON(content(session.base()));
  download(`remote-config-${project}-${namespace}-v${number}${edited ? "-edited" : ""}.json`, `${JSON.stringify(draft, null, 2)}\n`);
  say("Exported the template as a JSON file.");
}
