// Someone else publishing while this page edits. The page looks for a newer version every few
// seconds (the newest entry of listVersions: one small answer, whatever the template's size),
// loads it when the draft has no changes, and otherwise offers a merge item by item (keep mine,
// take theirs; merge.js). A publish refused with VERSION_MISMATCH offers the same merge.
// A draft proposed for review is followed too: once its change request is applied, the new
// version is this draft's own (it becomes the base, not a change to merge); once it is rejected,
// cancelled or conflicted, the draft's changes are unpublished again.
import { call, templatePath, scopePath } from "./api.js";
import { describeChange, renderDiff } from "./diff.js";
import { button, el, formatTime, replace } from "./dom.js";
import { mergeItems, mergedTemplate } from "./merge.js";
import * as session from "./session.js";
import { content, describeValue } from "./template.js";
import { diffFrom, versionOf } from "./checks.js";

const checkEvery = 5000;
let notice;
let panel;
let timer = null;
let checking = false;
/** The newer version already offered for merging: the notice is not shown again for it. */
let offered = "";
let say = () => {};

/** Adds the notice and the merge panel to the draft bar; `report(text, kind)` writes the bar's result line. */
export function mount(container, report) {
  say = report;
  notice = el("div", { class: "notice", hidden: true, role: "status" });
  panel = el("div", { class: "conflict", hidden: true });
  container.append(notice, panel);
  session.events.addEventListener("replaced", () => {
    notice.hidden = true;
    panel.hidden = true;
    setTimeout(check, 0);
  });
  session.events.addEventListener("scope", () => {
    notice.hidden = true;
    panel.hidden = true;
  });
}

/** Starts looking for newer versions (signed in); stop() ends it. */
export function start() {
  stop();
  timer = setInterval(() => {
    if (!document.hidden) check();
  }, checkEvery);
}

export function stop() {
  clearInterval(timer);
  timer = null;
}

async function check() {
  const { project, namespace } = session.scope();
  if (checking || !session.hasTemplate()) return;
  checking = true;
  try {
    if (session.proposal() && await followProposal(project, namespace, session.proposal())) return;
    const { body } = await call("GET", `${templatePath(project, namespace, "listVersions")}?pageSize=1`);
    const newest = body.versions?.[0];
    const base = session.base();
    // The answer may come after another template was chosen, or after this page published.
    if (!newest || session.scope().namespace !== namespace || session.scope().project !== project) return;
    if (Number(newest.versionNumber) <= versionOf(base)) return;
    if (!session.isDirty()) {
      const theirs = await call("GET", templatePath(project, namespace));
      session.adopt(theirs.body, theirs.etag);
      say(`Loaded version ${newest.versionNumber}, published by ${newest.updateUser?.email ?? "someone"} at ${formatTime(newest.updateTime)}.`, "ok");
      return;
    }
    if (offered === String(newest.versionNumber)) return;
    offered = String(newest.versionNumber);
    const waiting = session.proposal() ? `, while your change request #${session.proposal().id} waits for review` : " while you edit";
    replace(notice,
      el("p", { text: `Version ${newest.versionNumber} was published by ${newest.updateUser?.email ?? "someone"} at `
        + `${formatTime(newest.updateTime)}${newest.description ? ` (“${newest.description}”)` : ""}${waiting}.` }),
      button("Review and merge…", () => showMerge(), { class: "primary" }));
    notice.hidden = false;
  } catch {
    // A failed look is tried again at the next one; a publish still reports the conflict.
  } finally {
    checking = false;
  }
}

/**
 * Where the change request this draft was proposed as stands. Returns true when it settled here
 * (the draft was moved onto the version it was applied as, or given back its changes).
 */
async function followProposal(project, namespace, request) {
  const path = `${scopePath(project, namespace)}/changeRequests/${encodeURIComponent(request.id)}`;
  let answer;
  try {
    answer = (await call("GET", path)).body;
  } catch (error) {
    if (error.status !== 404) return false;
    session.dropProposal();
    say(`Change request #${request.id} is gone: your changes are unpublished again.`, "error");
    return true;
  }
  const still = () => session.proposal()?.id === request.id && session.scope().project === project && session.scope().namespace === namespace;
  if (!still()) return true;
  const by = (step) => (step?.name || step?.principal ? ` by ${step.name || step.principal}` : "");
  const said = (step) => (step?.comment ? `: “${step.comment}”` : "");
  if (answer.status === "applied") {
    const number = String(answer.appliedVersion);
    let theirs = await call("GET", templatePath(project, namespace));
    if (String(theirs.body.version?.versionNumber) !== number) {
      theirs = await call("GET", `${templatePath(project, namespace)}?versionNumber=${encodeURIComponent(number)}`);
    }
    if (!still()) return true;
    const later = session.isAtRisk();
    const approvers = answer.approvals.map((approval) => approval.name || approval.principal);
    if (later) {
      // The version holds what was proposed; the edits made since stay on top of it.
      session.rebase(theirs.body, theirs.etag, session.draft(), `change request #${request.id} applied`);
      session.dropProposal();
    } else {
      session.adopt(theirs.body, theirs.etag);
    }
    say(`Your change request #${request.id} was applied as version ${number}${by(answer.appliedBy)}`
      + `${approvers.length ? `, approved by ${approvers.join(", ")}` : ""}.`
      + `${later ? " Your edits since are kept as unpublished changes." : ""}`, "ok");
    return true;
  }
  if (["rejected", "cancelled", "conflicted"].includes(answer.status)) {
    session.dropProposal();
    const why = {
      rejected: `was rejected${by(answer.rejection)}${said(answer.rejection)}`,
      cancelled: `was cancelled${by(answer.cancellation)}${said(answer.cancellation)}`,
      conflicted: `conflicts: version ${answer.conflictVersion ?? "a newer one"} was published since it was proposed`,
    }[answer.status];
    say(`Change request #${request.id} ${why}. Your changes are unpublished again: edit them and propose again, or discard them.`, "error");
    return true;
  }
  return false;
}

async function fetchTheirs() {
  const { project, namespace } = session.scope();
  return call("GET", templatePath(project, namespace));
}

/** After a publish refused with VERSION_MISMATCH: what publishing would change in theirs, and the ways on. */
export async function showConflict(publishWithTag) {
  let theirs;
  try {
    theirs = await fetchTheirs();
  } catch (error) {
    return say(error.message, "error");
  }
  const version = theirs.body.version || {};
  const mine = versionOf(session.base());
  let draftAgainstTheirs;
  try {
    draftAgainstTheirs = await diffFrom(versionOf(theirs.body), content(session.draft()));
  } catch (error) {
    return say(error.message, "error");
  }
  say(`Not published: someone else published version ${version.versionNumber} since you loaded version ${mine}.`, "error");
  notice.hidden = true;
  replace(panel,
    el("h3", { tabIndex: -1, text: "Someone else published first" }),
    el("p", {
      text: `Version ${version.versionNumber} was published by ${version.updateUser?.email ?? "unknown"} `
        + `at ${formatTime(version.updateTime)}${version.description ? ` (“${version.description}”)` : ""}. `
        + "Publishing your draft would make these changes to their version:",
    }),
    renderDiff(draftAgainstTheirs),
    el("div", { class: "actions" },
      button("Merge their changes with mine…", () => showMerge(theirs), { class: "primary" }),
      button("Publish anyway (overwrites theirs)", () => {
        panel.hidden = true;
        publishWithTag(theirs.etag);
      }, { class: "danger" }),
      button("Load their version (drops your changes)", () => {
        session.adopt(theirs.body, theirs.etag);
        say(`Loaded version ${version.versionNumber}.`, "ok");
      }),
      button("Keep editing", () => {
        panel.hidden = true;
      })));
  panel.hidden = false;
  panel.querySelector("h3").focus();
}

/** What one side changed in an item since the base, in a few words, as the server's diff (`sinceBase[side]`) says. */
function change(item, side, sinceBase) {
  const before = item.base;
  const after = item[side];
  if (after === undefined) return "removed";
  if (before === undefined) return `added: ${reading(item, side)}`;
  if (item.kind === "parameter") {
    const found = sinceBase[side].changedParameters.find((entry) => entry.key === item.name);
    return found ? describeChange(found) : "unchanged";
  }
  if (item.kind === "condition") {
    const found = sinceBase[side].changedConditions.find((entry) => entry.name === item.name);
    return found ? describeChange(found) : "moved";
  }
  return `description: ${before.description ?? "(none)"} → ${after.description ?? "(none)"}`;
}

/** How one side has an item, in a few words. */
function reading(item, side) {
  const value = item[side];
  if (value === undefined) return "removed";
  if (item.kind === "parameter") {
    const conditional = Object.keys(value.parameter.conditionalValues || {});
    return `default ${describeValue(value.parameter.defaultValue)}${conditional.length ? `, values for ${conditional.join(", ")}` : ""}`
      + `${value.group ? `, in group ${value.group}` : ""}`;
  }
  if (item.kind === "condition") return value.expression ?? "structured rule";
  return value.description ?? "(no description)";
}

/** The merge, item by item: what is taken and kept by itself, and a choice where both changed. */
async function showMerge(known) {
  let theirs = known;
  if (!theirs) {
    try {
      theirs = await fetchTheirs();
    } catch (error) {
      return say(error.message, "error");
    }
  }
  // What each side changed since the base, as the server's diff says.
  const baseVersion = versionOf(session.base());
  const sinceBase = {};
  try {
    [sinceBase.mine, sinceBase.theirs] = await Promise.all([
      diffFrom(baseVersion, content(session.draft())), diffFrom(baseVersion, content(theirs.body))]);
  } catch (error) {
    return say(error.message, "error");
  }
  notice.hidden = true;
  const items = mergeItems(session.base(), session.draft(), theirs.body);
  const choices = new Map();
  const conflicts = items.filter((item) => item.state === "conflict");
  const line = (item, text) => el("li", {}, el("code", { text: `${item.kind} ${item.name}` }), text);
  const taken = items.filter((item) => item.state === "theirs");
  const kept = items.filter((item) => item.state === "mine");
  const version = theirs.body.version?.versionNumber;
  replace(panel,
    el("h3", { tabIndex: -1, text: `Merge version ${version} into your draft` }),
    el("p", { class: "hint", text: "Your draft then starts from their version; publishing it keeps both sets of changes." }),
    taken.length ? el("section", { "aria-label": "Taken from their version" }, el("h4", { text: `Taken from version ${version} (${taken.length})` }),
      el("ul", {}, ...taken.map((item) => line(item, `: ${change(item, "theirs", sinceBase)}`)))) : null,
    kept.length ? el("section", { "aria-label": "Kept from your draft" }, el("h4", { text: `Kept from your draft (${kept.length})` }),
      el("ul", {}, ...kept.map((item) => line(item, `: ${change(item, "mine", sinceBase)}`)))) : null,
    conflicts.length ? el("h4", { text: `Changed on both sides (${conflicts.length}): choose` }) : null,
    ...conflicts.map((item) => {
      const name = `merge-${item.kind}-${item.name}`;
      const option = (value, text) => el("label", { class: "choice" },
        el("input", { type: "radio", name, value, checked: value === "mine", on: { change: () => choices.set(`${item.kind}\n${item.name}`, value) } }),
        ` ${text}`);
      return el("fieldset", { class: "merge-choice" }, el("legend", { text: `${item.kind} ${item.name}` }),
        option("mine", `Keep mine (${change(item, "mine", sinceBase)}): ${reading(item, "mine")}`),
        option("theirs", `Take theirs (${change(item, "theirs", sinceBase)}): ${reading(item, "theirs")}`));
    }),
    el("div", { class: "actions" },
      button("Apply the merge", () => {
        session.rebase(theirs.body, theirs.etag, mergedTemplate(theirs.body, session.draft(), items, choices));
        say(`Merged version ${version} into your draft: review, then publish.`, "ok");
      }, { class: "primary" }),
      button("Cancel", () => {
        panel.hidden = true;
      })));
  panel.hidden = false;
  panel.querySelector("h3").focus();
}
