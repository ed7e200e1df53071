// The Live view: held real-time streams and recent fetches per template version (the
// `:adoption` endpoint), polled every few seconds while the view is shown, with a plot of
// held streams per version over time, so a new version can be watched taking over.
import { call, templatePath } from "./api.js";
import { el, replace, svg } from "./dom.js";
import * as session from "./session.js";

const intervalMilliseconds = 3000;
const maxSamples = 60;
const width = 640;
const height = 240;
const margin = { left: 44, right: 92, top: 12, bottom: 28 };

let timer = null;
let samples = [];
let summary;
let chart;
let table;
let workers;
let lastSummary = "";

export function mount(container) {
  summary = el("p", { class: "live-summary", "aria-live": "polite" });
  workers = el("p", { class: "hint" });
  chart = svg("svg", {
    viewBox: `0 0 ${width} ${height}`, role: "img", "aria-labelledby": "live-chart-title live-chart-desc", class: "chart",
  });
  table = el("tbody");
  replace(container,
    el("h2", { tabIndex: -1, text: "Live: clients per version" }),
    el("p", { class: "hint", text: `Refreshed every ${intervalMilliseconds / 1000} seconds while this view is shown.` }),
    summary,
    chart,
    workers,
    el("div", { class: "table-scroll" }, el("table", { class: "adoption" },
      el("caption", { text: "Now, per version" }),
      el("thead", {}, el("tr", {}, ...["Version", "Held streams", "Fetches in the last 10 minutes"]
        .map((text) => el("th", { scope: "col", text })))),
      table)));
  session.events.addEventListener("scope", () => {
    samples = [];
    lastSummary = "";
  });
}

function pollWhenVisible() {
  if (!document.hidden) poll();
}

/** Starts polling (the view is shown). */
export function start() {
  stop();
  poll();
  timer = setInterval(pollWhenVisible, intervalMilliseconds);
  document.addEventListener("visibilitychange", pollWhenVisible);
}

/** Stops polling (another view is shown, or the user signed out). */
export function stop() {
  if (timer !== null) clearInterval(timer);
  timer = null;
  document.removeEventListener("visibilitychange", pollWhenVisible);
}

export function reset() {
  stop();
  samples = [];
  lastSummary = "";
}

async function poll() {
  const { project, namespace } = session.scope();
  try {
    const { body } = await call("GET", templatePath(project, namespace, "adoption"));
    samples.push({ time: Date.now(), versions: body.versions || [] });
    if (samples.length > maxSamples) samples.shift();
    render(body);
  } catch (error) {
    summary.textContent = error.message;
  }
}

function render(answer) {
  const rows = answer.versions || [];
  replace(table, ...rows.map((row) => el("tr", { dataset: { version: row.versionNumber } },
    el("th", { scope: "row", text: row.versionNumber === answer.currentVersion ? `${row.versionNumber} (current)` : row.versionNumber }),
    el("td", { text: String(row.heldClients) }),
    el("td", { text: String(row.recentFetches) }))));
  if (rows.length === 0) table.append(el("tr", {}, el("td", { colSpan: 3, text: "No clients yet." })));
  workers.textContent = `${answer.workersReporting} of ${answer.workers} worker processes answered.`;
  const total = rows.reduce((sum, row) => sum + row.heldClients, 0);
  const onCurrent = rows.find((row) => row.versionNumber === answer.currentVersion)?.heldClients ?? 0;
  const text = `Version ${answer.currentVersion} is current: ${onCurrent} of ${total} held streams are on it.`;
  if (text !== lastSummary) summary.textContent = text;
  lastSummary = text;
  drawChart();
}

/** One line per version: held streams over the sampled time, labelled at its end. */
function drawChart() {
  const versions = [...new Set(samples.flatMap((sample) => sample.versions.map((row) => row.versionNumber)))]
    .sort((a, b) => Number(a) - Number(b));
  const counts = (sample, version) => sample.versions.find((row) => row.versionNumber === version)?.heldClients ?? 0;
  const peak = Math.max(1, ...samples.flatMap((sample) => versions.map((version) => counts(sample, version))));
  const top = niceCeiling(peak);
  const first = samples[0]?.time ?? Date.now();
  const last = samples[samples.length - 1]?.time ?? first;
  const span = Math.max(last - first, intervalMilliseconds);
  const plotWidth = width - margin.left - margin.right;
  const plotHeight = height - margin.top - margin.bottom;
  const x = (time) => margin.left + ((time - first) / span) * plotWidth;
  const y = (count) => margin.top + plotHeight - (count / top) * plotHeight;

  const nodes = [
    svg("title", { id: "live-chart-title", text: "Held streams per version over time" }),
    svg("desc", { id: "live-chart-desc", text: versions.map((version) => `version ${version}: ${counts(samples[samples.length - 1], version)}`).join(", ") || "no data yet" }),
  ];
  for (const tick of [0, top / 2, top]) {
    nodes.push(svg("line", { class: "gridline", x1: margin.left, x2: width - margin.right, y1: y(tick), y2: y(tick) }));
    nodes.push(svg("text", { class: "axis", x: margin.left - 6, y: y(tick) + 4, "text-anchor": "end", text: formatCount(tick) }));
  }
  nodes.push(svg("text", { class: "axis", x: margin.left, y: height - 8, text: `${Math.round(span / 1000)} s ago` }));
  nodes.push(svg("text", { class: "axis", x: width - margin.right, y: height - 8, "text-anchor": "end", text: "now" }));
  const labels = [];
  versions.forEach((version, index) => {
    const points = samples.map((sample) => `${x(sample.time).toFixed(1)},${y(counts(sample, version)).toFixed(1)}`);
    if (points.length === 1) points.push(`${(x(first) + 2).toFixed(1)},${y(counts(samples[0], version)).toFixed(1)}`);
    const series = `series s${index % 6}`;
    nodes.push(svg("polyline", { class: series, points: points.join(" ") }));
    const latest = counts(samples[samples.length - 1], version);
    labels.push({ at: y(latest) + 4, series, text: `v${version}: ${latest}` });
  });
  // Labels of equal counts would overlap: push each below the one above it.
  labels.sort((a, b) => a.at - b.at);
  labels.forEach((label, index) => {
    if (index > 0) label.at = Math.max(label.at, labels[index - 1].at + 14);
    nodes.push(svg("text", { class: `label ${label.series}`, x: width - margin.right + 6, y: label.at, text: label.text }));
  });
  chart.replaceChildren(...nodes);
}

function niceCeiling(value) {
  const magnitude = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 5, 10]) if (value <= step * magnitude) return step * magnitude;
  return 10 * magnitude;
}

function formatCount(value) {
  return Number.isInteger(value) ? String(value) : value.toFixed(1);
}
