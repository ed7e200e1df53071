// The draft bar above every editing view: what the draft is based on and whether it changed,
// undo and redo, validate, review and publish (with the ETag it was loaded with), propose for
// review, discard, import and export. Publishing first shows what it changes against the
// current version and asks for a description; Publish is off while nothing changed. The bar
// offers what the role allows: who may publish sees Review and publish as the main action,
// who must ask for review sees Propose for review; a draft proposed for review is the change
// request's until it settles (conflicts.js follows it). On a phone the less used actions fold
// under More actions.
import { call, templatePath, scopePath } from "./api.js";
import { renderDiff, diffLines } from "./diff.js";
import { button, el, field, formatTime, replace, setIssue } from "./dom.js";
import * as session from "./session.js";
import * as conflicts from "./conflicts.js";
import { confirmStep } from "./confirm.js";
import { transferButtons } from "./transfer.js";
import { content } from "./template.js";
import { diffFrom, problems as problemsOf, versionOf } from "./checks.js";

let status;
let result;
let issueList;
let review;
let kept;
let confirmArea;
let undoButton;
let redoButton;
let validateButton;
let publishButton;
let proposeButton;
let discardButton;
let roleHint;
let moreActions;
/** Whether the role and the policy allow publishing here (apart from having changes). */
let mayPublish = true;

export function mount(container) {
  status = el("p", { class: "draft-status" });
  result = el("div", { class: "result", role: "status", "aria-live": "polite" });
  issueList = el("div", { class: "issues" });
  review = el("div", { class: "review", hidden: true });
  kept = el("div", { class: "notice", hidden: true });
  confirmArea = el("div", { class: "confirm-area" });
  undoButton = button("Undo", session.undo, { "aria-keyshortcuts": "Control+Z" });
  redoButton = button("Redo", session.redo, { "aria-keyshortcuts": "Control+Shift+Z" });
  validateButton = button("Validate", validate);
  publishButton = button("Review and publish…", () => showReview("publish"), { class: "primary" });
  proposeButton = button("Propose for review…", () => showReview("propose"));
  discardButton = button("Discard changes…", confirmDiscard);
  roleHint = el("p", { class: "hint", hidden: true });
  moreActions = el("details", { class: "more-actions" }, el("summary", { text: "More actions" }),
    el("div", { class: "more-actions-list" }, validateButton, discardButton, ...transferButtons(say)));
  // Wide screens show every action; a phone folds the less used ones.
  const wide = window.matchMedia("(min-width: 641px)");
  const unfold = () => {
    moreActions.open = wide.matches;
  };
  wide.addEventListener("change", unfold);
  unfold();
  replace(container,
    kept,
    status,
    roleHint,
    el("div", { class: "toolbar draft-actions" }, undoButton, redoButton, publishButton, proposeButton, moreActions),
    confirmArea, result, issueList, review);
  conflicts.mount(container, say);
  for (const name of ["replaced", "structure", "edited"]) {
    session.events.addEventListener(name, () => {
      showStatus();
      // What the bar last said (accepted, published, loaded) may no longer hold for the changed draft.
      if (name !== "replaced") say("");
    });
  }
  session.events.addEventListener("steps", showSteps);
  session.events.addEventListener("proposal", showStatus);
  for (const name of ["scope", "replaced", "policy"]) session.events.addEventListener(name, offerWhatTheRoleAllows);
  session.events.addEventListener("scope", loadPolicy);
  session.events.addEventListener("replaced", () => {
    review.hidden = true;
    replace(confirmArea);
  });
  session.events.addEventListener("kept", offerKept);
  session.events.addEventListener("issues", showIssues);
}

/** The chosen template's approval policy, for what the bar offers. */
async function loadPolicy() {
  const { project, namespace } = session.scope();
  try {
    const { body } = await call("GET", `${scopePath(project, namespace)}/changePolicy`);
    session.setPolicy(body);
  } catch {
    // An older server without change control: publishing is offered as before.
  }
}

/**
 * Validate needs the editor role, publishing the publisher role (or editor, where the policy
 * lets editors publish); where the policy requires approvals, changes are proposed for review
 * instead (docs/access.md, docs/change-control.md). An action the role does not allow is not
 * offered; the bar says what is held and what is needed.
 */
function offerWhatTheRoleAllows() {
  const policy = session.policy() || {};
  const approval = policy.requiredApprovals > 0;
  const editor = session.can("editor");
  mayPublish = !approval && session.can(policy.editorsMayPublish ? "editor" : "publisher");
  validateButton.hidden = !editor;
  publishButton.hidden = !mayPublish;
  proposeButton.hidden = !editor;
  // The main action is the one this person takes: publishing, or else proposing.
  proposeButton.classList.toggle("primary", editor && !mayPublish);
  const held = session.role() || "no role";
  roleHint.hidden = mayPublish;
  if (approval && editor) {
    roleHint.textContent = `Publishing this template needs ${policy.requiredApprovals} approval${policy.requiredApprovals === 1 ? "" : "s"}: `
      + "propose your changes for review; once approved, a publisher applies them from Changes.";
  } else if (editor) {
    roleHint.textContent = `You hold ${held} on this project: publishing needs the publisher role, so propose your changes for review.`;
  } else {
    roleHint.textContent = `You hold ${held} on this project: you can read this template; editing it needs the editor role, publishing the publisher role.`;
  }
  showStatus();
}

function say(text, kind = "") {
  result.className = `result ${kind}`;
  result.textContent = text;
}

/** What `draft` changes against the draft's base, as the server's diff says it in lines. */
async function changeLines(draft) {
  return diffLines(await diffFrom(versionOf(session.base()), content(draft)));
}

/** A draft kept in this browser from an earlier visit: restore it or drop it. */
async function offerKept() {
  const record = session.keptDraft();
  kept.hidden = !record;
  if (!record) return replace(kept);
  let lines;
  try {
    lines = await changeLines(record.draft);
  } catch {
    lines = ["(the server could not say what it changes)"];
  }
  if (session.keptDraft() !== record) return undefined;
  replace(kept,
    el("p", { text: `This browser kept a draft of this template from ${formatTime(record.savedAt)}, based on version `
      + `${versionOf(record.base)}, with ${lines.length} change${lines.length === 1 ? "" : "s"}: ` }),
    el("ul", {}, ...lines.slice(0, 8).map((line) => el("li", { text: line }))),
    el("div", { class: "actions" },
      button("Restore the kept draft", () => {
        session.restoreKept();
        offerKept();
        say("Restored the kept draft.", "ok");
      }, { class: "primary" }),
      button("Discard the kept draft", () => {
        session.dropKept();
        say("The kept draft is discarded.");
      })));
  kept.querySelector("button").focus();
}

export function showStatus() {
  const template = session.base();
  if (!template) return;
  const version = template.version;
  const based = version?.versionNumber
    ? `Editing version ${version.versionNumber}, published ${formatTime(version.updateTime)} by ${version.updateUser?.email ?? "unknown"}`
    : "No version published yet";
  const dirty = session.isDirty();
  const atRisk = session.isAtRisk();
  const request = session.proposal();
  let state = dirty ? "Unpublished changes." : "No unpublished changes.";
  if (request && !atRisk) {
    state = `Your changes are proposed for review as change request #${request.id}: it is applied once approved (follow it in Changes).`;
  } else if (request) {
    state = `Unpublished changes beyond change request #${request.id}.`;
  }
  status.textContent = `${based}. ${state}`;
  status.classList.toggle("dirty", atRisk);
  publishButton.disabled = !dirty;
  publishButton.title = dirty ? "" : "Nothing to publish: the draft equals the current version.";
  proposeButton.disabled = !atRisk;
  proposeButton.textContent = request && atRisk ? `Update change request #${request.id}…` : "Propose for review…";
  discardButton.disabled = !dirty;
}

function showSteps() {
  const { undo, redo } = session.steps();
  undoButton.disabled = !undo;
  redoButton.disabled = !redo;
  undoButton.setAttribute("aria-label", undo ? `Undo ${undo}` : "Undo");
  redoButton.setAttribute("aria-label", redo ? `Redo ${redo}` : "Redo");
}

function refused(error) {
  if (error.issues.length) {
    session.setIssues(error.issues);
    return say(`The server refused the template: ${error.issues.length} problem${error.issues.length === 1 ? "" : "s"}, shown beside the fields.`, "error");
  }
  return say(error.message, "error");
}

async function validate() {
  const { project, namespace } = session.scope();
  say("Validating…");
  performance.mark("validate-start");
  try {
    await call("PUT", `${templatePath(project, namespace)}?validateOnly=true`, { body: content(session.draft()), headers: { "If-Match": session.etag() } });
    session.setIssues([]);
    say("The server accepts this template.", "ok");
  } catch (error) {
    refused(error);
  }
  performance.measure("validate", "validate-start");
}

/** What publishing (or proposing) changes against the current version, and its description. */
async function showReview(mode) {
  const draft = session.draft();
  const body = content(draft);
  say("Working out what this changes…");
  let diff;
  let problems;
  try {
    [diff, problems] = await Promise.all([diffFrom(versionOf(session.base()), body), problemsOf(body)]);
  } catch (error) {
    return refused(error);
  }
  say("");
  const description = el("input", { type: "text", autocomplete: "off", maxLength: 256, required: true });
  const descriptionField = field("Description of this version", description, { hint: "Required: what changes, and why." });
  const next = versionOf(session.base()) + 1;
  const go = () => {
    const text = description.value.trim();
    if (!text) {
      setIssue(descriptionField, "Describe what this version changes.");
      return description.focus();
    }
    review.hidden = true;
    return mode === "publish" ? publish(text) : propose(text);
  };
  description.addEventListener("keydown", (event) => {
    if (event.key === "Enter") go();
  });
  replace(review,
    el("h3", { tabIndex: -1, text: mode === "publish" ? `Review version ${next} before publishing` : "Review before proposing" }),
    el("p", { text: mode === "publish"
      ? `Publishing makes these changes to version ${next - 1}, and every connected client fetches them:`
      : `The change request proposes these changes to version ${next - 1}:` }),
    renderDiff(diff),
    problems.length ? el("div", { class: "issues" }, el("p", { text: "Fix these first:" }),
      el("ul", {}, ...problems.map((problem) => el("li", {}, el("code", { text: problem.path }), `: ${problem.message}`)))) : null,
    descriptionField,
    el("div", { class: "actions" },
      button(mode === "publish" ? `Publish version ${next}` : session.proposal() ? `Update change request #${session.proposal().id}` : "Propose these changes",
        go, { class: "primary", disabled: problems.length > 0 }),
      button("Cancel", () => {
        review.hidden = true;
        (mode === "publish" ? publishButton : proposeButton).focus();
      })));
  review.hidden = false;
  description.focus();
}

async function publish(description, ifMatch = session.etag()) {
  const { project, namespace } = session.scope();
  say("Publishing…");
  try {
    const body = { ...content(session.draft()), version: { description } };
    const answer = await call("PUT", templatePath(project, namespace), { body, headers: { "If-Match": ifMatch } });
    session.setIssues([]);
    session.adopt(answer.body, answer.etag);
    say(`Published version ${answer.body.version?.versionNumber ?? ""}.`, "ok");
  } catch (error) {
    if (error.isVersionMismatch) return conflicts.showConflict((tag) => publish(description, tag));
    return refused(error);
  }
  return undefined;
}

/**
 * Proposes the draft as a change request based on the version it was loaded from (or, when it
 * was proposed already, replaces that request's proposal, which clears its approvals). The draft
 * is then the request's: nothing is at risk until it is edited again.
 */
async function propose(description) {
  const { project, namespace } = session.scope();
  const body = { template: content(session.draft()), description };
  const requests = `${scopePath(project, namespace)}/changeRequests`;
  const earlier = session.proposal();
  say(earlier ? "Updating…" : "Proposing…");
  try {
    const answer = earlier
      ? await call("PATCH", `${requests}/${encodeURIComponent(earlier.id)}`, { body })
      : await call("POST", requests, { body, headers: { "If-Match": session.etag() } });
    session.setIssues([]);
    session.proposed(answer.body);
    const needs = `it needs ${answer.body.requiredApprovals} approval${answer.body.requiredApprovals === 1 ? "" : "s"}`;
    say(earlier ? `Updated change request #${answer.body.id}: ${needs} again. Follow it in Changes.`
      : `Proposed change request #${answer.body.id}: ${needs}. Follow it in Changes.`, "ok");
  } catch (error) {
    refused(error);
  }
}

function showIssues() {
  const issues = session.issues();
  if (issues.length === 0) return replace(issueList);
  return replace(issueList, el("ul", {}, ...issues.map((issue) => {
    const node = issue.path ? session.fieldFor(issue.path) : null;
    return el("li", {},
      issue.path ? el("code", { text: issue.path }) : null, issue.path ? ": " : "", issue.message,
      node ? button("Show", () => session.reveal(node), { class: "small", "aria-label": `Show ${issue.path}` }) : null);
  })));
}

/** Discarding says what goes; undo can still bring it back. */
async function confirmDiscard() {
  let lines;
  try {
    lines = await changeLines(session.draft());
  } catch (error) {
    return refused(error);
  }
  confirmStep(confirmArea, {
    title: `Discard ${lines.length} unpublished change${lines.length === 1 ? "" : "s"}?`,
    lost: lines,
    confirmLabel: "Discard them",
    onConfirm: () => {
      session.replaceDraft(session.base(), "discard changes");
      say("Changes discarded. Undo brings them back.");
    },
    onCancel: () => discardButton.focus(),
  });
}
