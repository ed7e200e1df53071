// The Insights view (docs/insights.md): what clients read of the template as served, counted by
// the server itself. Per parameter: evaluations per day over thirty days, the share of each
// source and the app versions still reading it in the chosen window, the last evaluation; then
// the stale and never-evaluated parameters, whose removal an editor proposes as one change
// request. Editors also mark kill switches permanent (never stale) and set the stale days.
import { call, templatePath, scopePath } from "./api.js";
import { button, el, field, formatTime, replace, select, svg, tableRegion } from "./dom.js";
import { allParameters, content, normalize, removeParameter } from "./template.js";
import * as session from "./session.js";

const WINDOWS = [["hour", "Last hour"], ["day", "Last day"], ["week", "Last 7 days"], ["month", "Last 30 days"]];
const REASONS = { NOT_EVALUATED: "not evaluated", ONE_VALUE: "one value for every client" };
const headings = ["Parameter", "Last 30 days", "Evaluations", "Sources", "App versions", "Last evaluated", "State", "Actions"];

let message;
let summary;
let table;
let cleanup;
let settings;
let windowChoice;
/** The last report shown, redrawn when the window changes. */
let report = null;
let loads = 0;

const usagePath = () => templatePath(session.scope().project, session.scope().namespace, "usage");
const parameterPath = (key, action) => {
  const { project, namespace } = session.scope();
  return `${scopePath(project, namespace)}`
    + `/parameters/${encodeURIComponent(key)}:${action}`;
};

export function mount(container) {
  message = el("p", { class: "result", role: "status", "aria-live": "polite" });
  summary = el("p", { class: "hint" });
  table = el("div");
  cleanup = el("div", { tabIndex: -1 });
  settings = el("div");
  windowChoice = select(WINDOWS, "day", { on: { change: draw } });
  replace(container,
    el("h2", { tabIndex: -1, text: "Insights" }),
    el("p", { class: "hint", text: "Counted by the server on every fetch and OpenFeature evaluation: exact, with no SDK change. "
      + "Each worker writes its counts every few seconds." }),
    el("div", { class: "toolbar compact" }, field("Window", windowChoice), button("Refresh", () => load())),
    message,
    summary,
    table,
    el("h3", { text: "Stale and never evaluated" }),
    cleanup,
    el("h3", { text: "Settings" }),
    settings);
  session.events.addEventListener("scope", () => {
    report = null;
    message.textContent = "";
    replace(table);
    replace(cleanup);
  });
}

/** Reads the report (when the view is shown, on Refresh, after a change). */
export async function load() {
  const load = ++loads;
  try {
    const [usage, usageSettings] = await Promise.all([
      call("GET", usagePath()),
      call("GET", `/v1/projects/${encodeURIComponent(session.scope().project)}/usageSettings`),
    ]);
    if (load !== loads) return;
    report = usage.body;
    draw();
    drawSettings(usageSettings.body);
  } catch (error) {
    if (load !== loads) return;
    report = null;
    replace(table, el("p", { class: "hint", text: error.message }));
    replace(cleanup);
  }
}

function draw() {
  if (!report) return;
  const window = windowChoice.value;
  const parameters = report.parameters || [];
  summary.textContent = `Version ${report.templateVersion} as served. `
    + (report.countedSince ? `Counted since ${formatTime(report.countedSince)}. ` : "Nothing counted yet. ")
    + `Stale after ${report.staleDays} day${report.staleDays === 1 ? "" : "s"}.`;
  if (parameters.length === 0) {
    replace(table, el("p", { class: "hint", text: "The served template has no parameters." }));
  } else {
    replace(table, tableRegion(el("table", { class: "insights" },
      el("caption", { text: `What clients read, ${WINDOWS.find(([value]) => value === window)[1].toLowerCase()}` }),
      el("thead", {}, el("tr", {}, ...headings.map((heading) => el("th", { scope: "col", text: heading })))),
      el("tbody", {}, ...parameters.map((parameter) => row(parameter, parameter.windows?.[window] || {})))), "What clients read"));
  }
  drawCleanup();
}

function row(parameter, counts) {
  const evaluations = counts.evaluations || 0;
  return el("tr", { dataset: { key: parameter.key } },
    el("th", { scope: "row", text: parameter.key }),
    el("td", {}, sparkline(parameter.daily || [], parameter.key)),
    el("td", { class: "number", text: evaluations.toLocaleString() }),
    el("td", {}, shares(counts.bySource || {}, evaluations, "source")),
    el("td", {}, shares(counts.byAppVersion || {}, evaluations, "app version", 3)),
    el("td", { text: parameter.lastEvaluateTime ? formatTime(parameter.lastEvaluateTime) : "Never" }),
    el("td", { text: state(parameter) }),
    el("td", { class: "actions" }, session.can("editor")
      ? button(parameter.permanent ? "Not permanent" : "Mark permanent", () => mark(parameter),
        { "aria-label": `${parameter.permanent ? "Not permanent" : "Mark permanent"}: ${parameter.key}` })
      : null));
}

function state(parameter) {
  if (parameter.permanent) return "Permanent";
  if (parameter.staleReason) return `Stale: ${REASONS[parameter.staleReason] || parameter.staleReason}`;
  if (parameter.unevaluated) return "Never evaluated";
  return "In use";
}

/** Evaluations per day as bars, scaled to the busiest day, with the figures in words. */
function sparkline(daily, key) {
  const width = 120, height = 24, most = Math.max(1, ...daily);
  const step = daily.length ? width / daily.length : width;
  const total = daily.reduce((sum, count) => sum + count, 0);
  const today = daily.at(-1) || 0;
  const picture = svg("svg", { class: "sparkline", viewBox: `0 0 ${width} ${height}`, width, height, role: "img",
    "aria-label": `${key}: ${total.toLocaleString()} evaluations in 30 days, ${today.toLocaleString()} in the last day` },
  ...daily.map((count, day) => {
    const bar = count === 0 ? 0 : Math.max(1, Math.round((count / most) * height));
    return svg("rect", { x: (day * step).toFixed(1), y: height - bar, width: Math.max(1, step - 1).toFixed(1), height: bar });
  }));
  return picture;
}

/** The largest `limit` entries of `counts` as "name 75 %", the rest summed, as a list. */
function shares(counts, total, noun, limit = 4) {
  const entries = Object.entries(counts).sort((one, other) => other[1] - one[1] || one[0].localeCompare(other[0]));
  if (entries.length === 0 || total === 0) return el("span", { class: "hint", text: `No ${noun} counted` });
  const named = entries.slice(0, limit);
  const rest = entries.slice(limit).reduce((sum, [, count]) => sum + count, 0);
  const percent = (count) => `${Math.round((count / total) * 100)} %`;
  return el("ul", { class: "shares" },
    ...named.map(([name, count]) => el("li", {}, bar(count / total), `${name} ${percent(count)}`)),
    rest > 0 ? el("li", { text: `${entries.length - limit} more ${percent(rest)}` }) : null);
}

/**
 * A bar `share` of the widest long, sized through the style object: the page's policy refuses
 * style attributes.
 */
function bar(share) {
  const node = el("span", { class: "share-bar", "aria-hidden": "true" });
  node.style.width = `${Math.max(2, Math.round(share * 60))}px`;
  return node;
}

/** The stale and never-evaluated parameters, each chosen for the proposed removal. */
function drawCleanup() {
  const candidates = (report.parameters || []).filter((parameter) => !parameter.permanent
    && (parameter.staleReason || parameter.unevaluated));
  if (candidates.length === 0) {
    return replace(cleanup, el("p", { class: "hint", text: "No parameter is stale or never evaluated." }));
  }
  const boxes = candidates.map((parameter) => el("input", { type: "checkbox", value: parameter.key, checked: true }));
  const editor = session.can("editor");
  replace(cleanup,
    el("fieldset", { class: "candidates" }, el("legend", { text: "Parameters to remove" }),
      ...candidates.map((parameter, index) => el("label", {}, boxes[index],
        ` ${parameter.key} (${parameter.staleReason ? REASONS[parameter.staleReason] || parameter.staleReason : "never evaluated"})`))),
    editor
      ? button("Propose removal", () => proposeRemoval(boxes.filter((box) => box.checked).map((box) => box.value)),
        { class: "primary" })
      : el("p", { class: "hint", text: "Proposing a removal needs the editor role." }));
}

/**
 * Proposes the served template without `keys` as a change request, based on the version it
 * was read at (so a publish meanwhile makes it a conflict, not a lost update). Reviewed and
 * applied in Changes, like any proposal.
 */
async function proposeRemoval(keys) {
  if (keys.length === 0) return say("Choose at least one parameter.", "error");
  const { project, namespace } = session.scope();
  say("Proposing…");
  try {
    const active = await call("GET", templatePath(project, namespace));
    const template = normalize(active.body);
    for (const { key, group } of allParameters(template)) {
      if (keys.includes(key)) removeParameter(template, key, group);
    }
    const requests = `${scopePath(project, namespace)}/changeRequests`;
    const answer = await call("POST", requests, {
      body: { template: content(template), description: `Remove parameters no client needs: ${keys.join(", ")}` },
      headers: { "If-Match": active.etag },
    });
    const approvals = answer.body.requiredApprovals;
    say(`Proposed change request #${answer.body.id} removing ${keys.join(", ")}: it needs ${approvals} approval`
      + `${approvals === 1 ? "" : "s"}. Follow it in Changes.`, "ok");
  } catch (error) {
    say(error.message, "error");
  }
}

async function mark(parameter) {
  try {
    await call("POST", parameterPath(parameter.key, parameter.permanent ? "unmarkPermanent" : "markPermanent"));
    say(parameter.permanent ? `${parameter.key} is no longer permanent.` : `${parameter.key} is permanent: never stale.`, "ok");
    await load();
  } catch (error) {
    say(error.message, "error");
  }
}

function drawSettings(current) {
  const days = el("input", { type: "number", min: 1, max: 365, value: String(current.staleDays), required: true });
  const editor = session.can("editor");
  days.disabled = !editor;
  replace(settings,
    el("form", { class: "toolbar compact", on: { submit: (event) => { event.preventDefault(); setStaleDays(Number(days.value)); } } },
      field("Stale after (days)", days, { hint: "Not evaluated, or one value for every client, for this long." }),
      editor ? el("button", { type: "submit", text: "Save" }) : null));
}

async function setStaleDays(days) {
  try {
    await call("PATCH", `/v1/projects/${encodeURIComponent(session.scope().project)}/usageSettings`, { body: { staleDays: days } });
    say(`Parameters are now stale after ${days} day${days === 1 ? "" : "s"}.`, "ok");
    await load();
  } catch (error) {
    say(error.message, "error");
  }
}

function say(text, kind = "") {
  message.textContent = text;
  message.className = `result ${kind}`.trim();
}
