// The Changes view: the template's change requests (docs/change-control.md) and its approval
// policy. A request opens with what it would change against the version it was based on (and,
// when the template moved since, against the active one), the template it proposes, and the
// steps the signed-in person may take: approve or reject with a comment, cancel, schedule, and
// apply once it has the approvals the policy asks for.
import { call, scopePath } from "./api.js";
import { renderDiff } from "./diff.js";
import { button, el, field, formatTime, labelCells, replace, tableRegion } from "./dom.js";
import * as session from "./session.js";

let policyLine;
let table;
let detail;
let message;
let requests = [];
let listTable;

const path = (suffix = "") => {
  const { project, namespace } = session.scope();
  return `${scopePath(project, namespace)}/${suffix}`;
};

export function mount(container) {
  policyLine = el("p", { class: "hint" });
  table = el("tbody");
  detail = el("div", { class: "change-detail", tabIndex: -1 });
  message = el("p", { class: "result", role: "status", "aria-live": "polite" });
  listTable = el("table", { class: "changes" },
    el("caption", { text: "Change requests, newest first" }),
    el("thead", {}, el("tr", {}, ...["Request", "Status", "Approvals", "Proposed by", "Description", "When", "Actions"]
      .map((heading) => el("th", { scope: "col", text: heading })))),
    table);
  replace(container,
    el("h2", { tabIndex: -1, text: "Changes" }),
    policyLine,
    message,
    tableRegion(listTable, "Change requests"),
    detail);
  session.events.addEventListener("scope", () => {
    replace(detail);
    message.textContent = "";
  });
}

/** Loads the policy and the requests (when the view is shown, and after each step). */
export async function load() {
  try {
    const [policy, list] = await Promise.all([call("GET", path("changePolicy")), call("GET", path("changeRequests"))]);
    session.setPolicy(policy.body);
    const needed = policy.body.requiredApprovals;
    policyLine.textContent = needed
      ? `Publishing this template needs ${needed} approval${needed === 1 ? "" : "s"}`
        + `${policy.body.allowSelfApproval ? " (authors may approve their own)" : " from people other than the author"}.`
      : "Publishing this template needs no approval: change requests here are an optional review.";
    requests = list.body.changeRequests || [];
  } catch (error) {
    policyLine.textContent = error.message;
    requests = [];
  }
  replace(table, ...requests.map(row));
  if (requests.length === 0) replace(table, el("tr", {}, el("td", { colSpan: 7, text: "No change requests yet." })));
  labelCells(listTable);
}

/** Whether a request holds the approvals its policy asks for. */
function approved(request) {
  return request.approvals.length >= request.requiredApprovals;
}

function row(request) {
  const when = request.scheduleTime ? `scheduled for ${formatTime(request.scheduleTime)}` : formatTime(request.createTime);
  return el("tr", { dataset: { request: request.id } },
    el("th", { scope: "row", text: `#${request.id}` }),
    el("td", { text: request.status + (request.appliedVersion ? ` (version ${request.appliedVersion})` : "") }),
    el("td", { text: `${request.approvals.length} of ${request.requiredApprovals}` }),
    el("td", { text: request.author.name }),
    el("td", { text: request.description ?? "" }),
    el("td", { text: when }),
    el("td", { class: "actions" }, button("Open", () => open(request.id), { "aria-label": `Open change request ${request.id}` })));
}

async function open(id) {
  let request;
  try {
    request = (await call("GET", path(`changeRequests/${id}`))).body;
  } catch (error) {
    message.textContent = error.message;
    return;
  }
  const comment = el("input", { type: "text", autocomplete: "off", maxLength: 2000 });
  const when = el("input", { type: "datetime-local" });
  const final = ["applied", "rejected", "cancelled"].includes(request.status);
  const mine = request.author.principal === session.me()?.id;
  const steps = final ? [] : [
    session.can("publisher") && request.status !== "conflicted"
      ? button("Approve", () => step(id, "approve", { comment: comment.value }), { class: "primary" }) : null,
    session.can("publisher") ? button("Reject", () => step(id, "reject", { comment: comment.value }), { class: "danger" }) : null,
    mine || session.can("admin") ? button("Cancel request", () => step(id, "cancel", { comment: comment.value })) : null,
    session.can("publisher") && request.status === "approved"
      ? button("Schedule", () => step(id, "schedule", { scheduleTime: new Date(when.value).toISOString() })) : null,
    session.can("publisher") && ["approved", "open"].includes(request.status) && approved(request)
      ? button(`Apply change request ${id}`, () => step(id, "apply", {})) : null,
  ];
  const waiting = !final && !approved(request)
    ? el("p", { class: "hint", text: `It can be applied once it has ${request.requiredApprovals} approval${request.requiredApprovals === 1 ? "" : "s"}; `
      + `it has ${request.approvals.length}.` }) : null;
  const proposedTemplate = el("pre", { class: "json", hidden: true, tabIndex: 0, role: "region", "aria-label": `The template change request ${id} proposes` });
  const viewTemplate = request.template ? button("View the proposed template", () => {
    proposedTemplate.hidden = !proposedTemplate.hidden;
    if (!proposedTemplate.textContent) proposedTemplate.textContent = JSON.stringify(request.template, null, 2);
    viewTemplate.textContent = proposedTemplate.hidden ? "View the proposed template" : "Hide the proposed template";
    viewTemplate.setAttribute("aria-expanded", String(!proposedTemplate.hidden));
  }, { "aria-expanded": "false" }) : null;
  // The template moved since the request was made: what applying it would change now.
  const moved = request.diffAgainstActive && request.activeVersion && request.activeVersion !== request.baseVersion;
  const approvals = request.approvals.map((approval) =>
    el("li", { text: `${approval.name} approved ${formatTime(approval.time)}${approval.comment ? `: “${approval.comment}”` : ""}` }));
  replace(detail,
    el("h3", { tabIndex: -1, text: `Change request #${id}: ${request.status}` }),
    el("p", { text: `${summary(request)}, proposed by `
      + `${request.author.name} ${formatTime(request.author.time)}, based on version ${request.baseVersion}`
      + `${request.description ? ` — “${request.description}”` : ""}.` }),
    request.conflictVersion
      ? el("p", { class: "issue", text: `The template moved to version ${request.conflictVersion} since: edit the proposal onto it.` }) : null,
    request.failure ? el("p", { class: "issue", text: `The schedule failed: ${request.failure}` }) : null,
    el("p", { text: `Approvals: ${request.approvals.length} of ${request.requiredApprovals}.` }),
    approvals.length ? el("ul", {}, ...approvals) : null,
    el("h4", { text: `What it changes in version ${request.baseVersion}` }),
    request.diff ? renderDiff(request.diff)
      : el("p", { text: request.kind === "rollback" ? "A rollback copies an earlier version." : "The diff is in the request (rcctl changes show)." }),
    moved ? el("h4", { text: `What it would change in the active version ${request.activeVersion}` }) : null,
    moved ? renderDiff(request.diffAgainstActive) : null,
    viewTemplate, proposedTemplate,
    waiting,
    final ? null : el("div", { class: "toolbar" }, field("Comment", comment), field("Schedule for", when), ...steps));
  detail.focus();
}

/** What a request does, in words. */
function summary(request) {
  if (request.kind === "rollback") return `Roll back to version ${request.rollbackTo}`;
  if (request.kind !== "canary") return "Publish";
  const percent = request.canaryPercent ? ` at ${request.canaryPercent} %` : "";
  return { start: `Start a canary${percent}`, share: `Grow the canary${percent}`, promote: "Promote the canary",
    abort: "Abort the canary" }[request.canaryStep] ?? "A canary step";
}

async function step(id, name, body) {
  try {
    const answer = await call("POST", path(`changeRequests/${id}:${name}`), { body });
    if (name === "apply") {
      session.adopt(answer.body, answer.etag);
      message.textContent = `Applied change request #${id}: version ${answer.body.version?.versionNumber ?? ""}.`;
    } else {
      message.textContent = `Change request #${id} is ${answer.body.status}.`;
    }
  } catch (error) {
    message.textContent = error.status === 409 && name === "apply"
      ? `Change request #${id} conflicts: the template moved since it was proposed.` : error.message;
  }
  await load();
  if (name !== "apply") await open(id);
}
