// The History view: the stored versions (who, when, origin, type, description), any version's
// template, the diff between any two, and rolling back after an in-page confirmation that shows
// what the rollback changes. A version applied from a change request names its author and
// approvers beside who applied it. Types and origins read as words; at phone width each row
// stacks into a card (styles.css), so View and Roll back stay on screen.
import { call, templatePath, scopePath } from "./api.js";
import { renderDiff } from "./diff.js";
import { button, el, field, formatTime, replace, select, tableRegion } from "./dom.js";
import * as session from "./session.js";

let table;
let more;
let compare;
let output;
let message;
let versions = [];
let nextPageToken = null;
let loads = 0;
let listStatus;
/** Version number → the change request applied as it. */
let requestsByVersion = new Map();

/** The words for the update types and origins a version records. */
const typeNames = {
  INCREMENTAL_UPDATE: "Publish",
  FORCED_UPDATE: "Forced publish",
  ROLLBACK: "Rollback",
  CANARY_PROMOTION: "Canary promoted",
  CANARY_ABORT: "Canary aborted",
  REMOTE_CONFIG_UPDATE_TYPE_UNSPECIFIED: "Update",
};
const originNames = {
  CONSOLE: "Console",
  REST_API: "REST API",
  ADMIN_SDK_NODE: "Admin SDK",
  REMOTE_CONFIG_UPDATE_ORIGIN_UNSPECIFIED: "Unknown",
};
const headings = ["Version", "Published", "By", "Origin", "Type", "Description", "Actions"];

export function mount(container) {
  table = el("tbody");
  more = button("Load older versions", () => load(true), { hidden: true });
  compare = el("form", { class: "toolbar", on: { submit: showDiff } });
  output = el("div", { class: "history-output", tabIndex: -1 });
  message = el("p", { class: "result", role: "status", "aria-live": "polite" });
  listStatus = el("p", { class: "hint" });
  replace(container,
    el("h2", { tabIndex: -1, text: "History" }),
    message,
    listStatus,
    tableRegion(el("table", { class: "versions" },
      el("caption", { text: "Published versions, newest first" }),
      el("thead", {}, el("tr", {}, ...headings.map((heading) => el("th", { scope: "col", text: heading })))),
      table), "Published versions"),
    more,
    el("h3", { text: "Compare two versions" }),
    compare,
    output);
  session.events.addEventListener("scope", () => {
    replace(output);
    message.textContent = "";
  });
  // A version published since (here or elsewhere) makes a rollback message old news.
  session.events.addEventListener("replaced", clearMessage);
}

/** Loads the first page of versions (or, with `older`, the next one). */
export async function load(older = false) {
  const { project, namespace } = session.scope();
  const query = new URLSearchParams({ pageSize: "50" });
  if (older && nextPageToken) query.set("pageToken", nextPageToken);
  loads += 1;
  const generation = loads;
  performance.mark("history-start");
  try {
    const requests = `${scopePath(project, namespace)}/changeRequests?status=applied`;
    const [{ body }, applied] = await Promise.all([
      call("GET", `${templatePath(project, namespace, "listVersions")}?${query}`),
      // Who proposed and approved a version applied from a change request (an older server has none).
      call("GET", requests).then((answer) => answer.body.changeRequests ?? [], () => []),
    ]);
    // An older request answering late must not overwrite a newer list.
    if (generation !== loads) return;
    requestsByVersion = new Map(applied.filter((request) => request.appliedVersion).map((request) => [String(request.appliedVersion), request]));
    versions = older ? [...versions, ...(body.versions || [])] : body.versions || [];
    nextPageToken = body.nextPageToken || null;
    listStatus.textContent = versions.length ? "" : "No version published yet.";
  } catch (error) {
    if (generation === loads) listStatus.textContent = error.message;
  }
  render();
  performance.measure("history", "history-start");
}

/** The message of an earlier step is cleared once the list it spoke of is loaded again. */
export function clearMessage() {
  message.textContent = "";
}

function render() {
  replace(table, ...versions.map(row));
  more.hidden = !nextPageToken;
  const numbers = versions.map((version) => [version.versionNumber, `Version ${version.versionNumber}`]);
  const from = select(numbers, versions[1]?.versionNumber ?? versions[0]?.versionNumber);
  const to = select(numbers, versions[0]?.versionNumber);
  replace(compare, field("From", from), field("To", to),
    el("button", { type: "submit", text: "Show differences", disabled: versions.length === 0 }));
}

function row(version, index) {
  const number = version.versionNumber;
  const current = index === 0;
  const type = typeNames[version.updateType] ?? version.updateType ?? "";
  const typeText = version.rollbackSource ? `${type} of version ${version.rollbackSource}` : type;
  // Each cell names its column, for the stacked rows of a phone's width.
  const cell = (column, props, ...children) => el("td", { ...props, dataset: { label: headings[column] } }, ...children);
  return el("tr", { class: current ? "current" : undefined },
    el("th", { scope: "row", dataset: { label: headings[0] }, text: current ? `${number} (current)` : String(number) }),
    cell(1, { text: formatTime(version.updateTime) }),
    cell(2, {}, ...people(version)),
    cell(3, { text: originNames[version.updateOrigin] ?? version.updateOrigin ?? "" }),
    cell(4, { text: typeText }),
    cell(5, { text: version.description ?? "" }),
    cell(6, { class: "actions" },
      button("View", () => view(number), { "aria-label": `View version ${number}` }),
      current ? null : button("Roll back…", () => confirmRollback(number),
        { "aria-label": `Roll back to version ${number}`, disabled: !session.can("publisher") })));
}

/** Who published a version, and for one applied from a change request, who proposed and approved it. */
function people(version) {
  const published = version.updateUser?.email ?? "";
  const request = requestsByVersion.get(String(version.versionNumber));
  if (!request) return [published];
  const name = (step) => step.name || step.principal;
  const approvers = request.approvals.map(name);
  return [
    el("span", { class: "person", text: `${published} (applied change request #${request.id})` }),
    el("span", { class: "person", text: `proposed by ${name(request.author)}` }),
    el("span", { class: "person", text: approvers.length ? `approved by ${approvers.join(", ")}` : "applied without approval" }),
  ];
}

async function view(number) {
  const { project, namespace } = session.scope();
  try {
    const { body } = await call("GET", `${templatePath(project, namespace)}?versionNumber=${encodeURIComponent(number)}`);
    replace(output, el("h3", { text: `Version ${number}` }), el("pre", { class: "json", text: JSON.stringify(body, null, 2) }));
  } catch (error) {
    replace(output, el("p", { class: "result error", text: error.message }));
  }
  output.focus();
}

async function showDiff(event) {
  event.preventDefault();
  const [from, to] = [...compare.querySelectorAll("select")].map((node) => node.value);
  const { project, namespace } = session.scope();
  const query = new URLSearchParams({ from, to });
  try {
    const { body } = await call("GET", `${templatePath(project, namespace, "diff")}?${query}`);
    replace(output, el("h3", { text: `Changes from version ${body.from} to version ${body.to}` }), renderDiff(body.diff));
  } catch (error) {
    replace(output, el("p", { class: "result error", text: error.message }));
  }
  output.focus();
}

/** An in-page question, not window.confirm: what the rollback changes, then a second, explicit click. */
async function confirmRollback(number) {
  const cancel = () => {
    replace(output);
    table.querySelector("button")?.focus();
  };
  const { project, namespace } = session.scope();
  let changes = el("p", { class: "hint", text: "What it changes could not be loaded." });
  try {
    const { body } = await call("GET", `${templatePath(project, namespace, "diff")}?${new URLSearchParams({ from: versions[0].versionNumber, to: number })}`);
    changes = renderDiff(body.diff);
  } catch {
    // The rollback itself does not need the diff.
  }
  replace(output,
    el("div", { class: "confirm", role: "group", "aria-label": "Confirm rollback" },
      el("p", { text: `Roll back to version ${number}? Its template is published again as a new version; clients pick it up at once. It changes the current version like this:` }),
      changes,
      el("div", { class: "actions" },
        button(`Roll back to version ${number}`, () => rollback(number), { class: "danger" }),
        button("Cancel", cancel))));
  output.querySelector("button").focus();
}

async function rollback(number) {
  const { project, namespace } = session.scope();
  try {
    const { body, etag } = await call("POST", templatePath(project, namespace, "rollback"), { body: { versionNumber: String(number) } });
    const unpublished = session.isDirty();
    replace(output);
    if (!unpublished) session.adopt(body, etag);
    await load();
    table.querySelector("button")?.focus();
    message.textContent = `Rolled back: version ${body.version?.versionNumber} has the template of version ${number}.`
      + (unpublished ? " Your unpublished changes are kept; publishing them will report the newer version." : "");
  } catch (error) {
    replace(output, el("p", { class: "result error", text: error.message }));
  }
}
