// The Live view: which versions clients actually fetched (the `:adoption` endpoint), polled
// every few seconds while the view is shown. The plot shows fetches per minute and version over
// the server's window (ten minutes), so it has a past when the view opens; the table tells the
// clients that fetched each version apart from the held streams merely told of it.
import { call, templatePath } from "./api.js";
import { el, replace, svg, tableRegion } from "./dom.js";
import * as session from "./session.js";

const intervalMilliseconds = 3000;
const height = 240;
const margin = { left: 40, right: 84, top: 12, bottom: 28 };
const headings = ["Version", "Clients that fetched it", "Fetches", "Held streams told of it"];

let timer = null;
let summary;
let chart;
let table;
let workers;
let lastSummary = "";

export function mount(container) {
  summary = el("p", { class: "live-summary", "aria-live": "polite" });
  workers = el("p", { class: "hint" });
  chart = svg("svg", { role: "img", "aria-labelledby": "live-chart-title live-chart-desc", class: "chart" });
  table = el("tbody");
  replace(container,
    el("h2", { tabIndex: -1, text: "Live: what clients fetched" }),
    el("p", { class: "hint", text: `Refreshed every ${intervalMilliseconds / 1000} seconds while this view is shown. `
      + "A client counts on the version its latest fetch got; a held stream is told of a new version at once, "
      + "but counts as fetched only once the client fetches it." }),
    summary,
    chart,
    workers,
    tableRegion(el("table", { class: "adoption" },
      el("caption", { text: "Last 10 minutes, per version" }),
      el("thead", {}, el("tr", {}, ...headings.map((text) => el("th", { scope: "col", text })))),
      table), "Clients per version"));
  session.events.addEventListener("scope", () => {
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
  lastSummary = "";
}

async function poll() {
  const { project, namespace } = session.scope();
  try {
    const { body } = await call("GET", templatePath(project, namespace, "adoption"));
    render(body);
  } catch (error) {
    summary.textContent = error.message;
  }
}

function render(answer) {
  const rows = answer.versions || [];
  const cell = (column, text) => el("td", { text: String(text), dataset: { label: headings[column] } });
  replace(table, ...rows.map((row) => el("tr", { dataset: { version: row.versionNumber } },
    el("th", { scope: "row", dataset: { label: headings[0] }, text: row.versionNumber === answer.currentVersion ? `${row.versionNumber} (current)` : row.versionNumber }),
    cell(1, row.fetchedClients ?? 0), cell(2, row.recentFetches), cell(3, row.heldClients))));
  if (rows.length === 0) table.append(el("tr", {}, el("td", { colSpan: 4, text: "No clients yet." })));
  workers.textContent = `${answer.workersReporting} of ${answer.workers} worker processes answered.`;
  const fetched = rows.reduce((sum, row) => sum + (row.fetchedClients ?? 0), 0);
  const current = rows.find((row) => row.versionNumber === answer.currentVersion);
  const held = current?.heldClients ?? 0;
  const text = `Version ${answer.currentVersion} is current: ${current?.fetchedClients ?? 0} of ${fetched} clients that fetched `
    + `in the last ${Math.round(answer.fetchWindowSeconds / 60)} minutes got it; `
    + `${held} held stream${held === 1 ? " is" : "s are"} told of it.`;
  if (text !== lastSummary) summary.textContent = text;
  lastSummary = text;
  drawChart(answer);
}

/** A top for the y axis and its ticks: whole numbers of fetches, never 0.5 of one. */
function wholeTicks(peak) {
  const step = peak <= 5 ? 1 : niceStep(peak / 4);
  const top = Math.max(step, Math.ceil(peak / step) * step);
  const ticks = [];
  for (let tick = 0; tick <= top; tick += step) ticks.push(tick);
  return { top, ticks };
}

function niceStep(raw) {
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  for (const factor of [1, 2, 5, 10]) if (raw <= factor * magnitude) return factor * magnitude;
  return 10 * magnitude;
}

/** One step line per version: fetches in each minute of the window, labelled at its end. */
function drawChart(answer) {
  const minutes = Math.round((answer.fetchWindowSeconds ?? 600) / 60);
  // Drawn at the chart's own width, so labels keep their size on a phone instead of shrinking.
  const width = Math.max(320, Math.round(chart.getBoundingClientRect().width) || 640);
  chart.setAttribute("viewBox", `0 0 ${width} ${height}`);
  const byMinute = new Map((answer.history || []).map((entry) => [entry.minutesAgo,
    new Map(entry.versions.map((row) => [row.versionNumber, row.fetches]))]));
  const versions = [...new Set((answer.history || []).flatMap((entry) => entry.versions.map((row) => row.versionNumber)))]
    .sort((a, b) => Number(a) - Number(b));
  const count = (ago, version) => byMinute.get(ago)?.get(version) ?? 0;
  const peak = Math.max(1, ...[...byMinute.values()].flatMap((map) => [...map.values()]));
  const { top, ticks } = wholeTicks(peak);
  const plotWidth = width - margin.left - margin.right;
  const plotHeight = height - margin.top - margin.bottom;
  const x = (ago) => margin.left + ((minutes - ago) / minutes) * plotWidth;
  const y = (value) => margin.top + plotHeight - (value / top) * plotHeight;
  const nodes = [
    svg("title", { id: "live-chart-title", text: "Fetches per minute, by version, over the last 10 minutes" }),
    svg("desc", { id: "live-chart-desc", text: versions.map((version) => `version ${version}: ${count(0, version)} fetches this minute`).join(", ") || "no fetches yet" }),
  ];
  for (const tick of ticks) {
    nodes.push(svg("line", { class: "gridline", x1: margin.left, x2: width - margin.right, y1: y(tick), y2: y(tick) }));
    nodes.push(svg("text", { class: "axis", x: margin.left - 6, y: y(tick) + 4, "text-anchor": "end", text: String(tick) }));
  }
  nodes.push(svg("text", { class: "axis", x: margin.left, y: height - 8, text: `${minutes} min ago` }));
  nodes.push(svg("text", { class: "axis", x: width - margin.right, y: height - 8, "text-anchor": "end", text: "now" }));
  const labels = [];
  versions.forEach((version, index) => {
    const points = [];
    for (let ago = minutes; ago >= 0; ago -= 1) {
      const value = y(count(ago, version));
      points.push(`${x(ago).toFixed(1)},${value.toFixed(1)}`, `${x(Math.max(0, ago - 1)).toFixed(1)},${value.toFixed(1)}`);
    }
    const series = `series s${index % 6}`;
    nodes.push(svg("polyline", { class: series, points: points.join(" ") }));
    // Only versions still fetched, or the current one, are named: old labels do not pile up.
    if (count(0, version) > 0 || version === answer.currentVersion) {
      labels.push({ at: y(count(0, version)) + 4, series, text: `v${version}: ${count(0, version)}/min` });
    }
  });
  // Labels of equal counts would overlap: push each below the one above it.
  labels.sort((a, b) => a.at - b.at);
  labels.forEach((label, index) => {
    if (index > 0) label.at = Math.max(label.at, labels[index - 1].at + 16);
    nodes.push(svg("text", { class: `label ${label.series}`, x: width - margin.right + 6, y: label.at, text: label.text }));
  });
  chart.replaceChildren(...nodes);
}
