// The Environments view (docs/environments.md): how the chosen environment's template differs
// from each other environment's, parameter by parameter (drift at a glance); promoting another
// environment's template, whole or chosen parameters, into this one after reviewing what it
// changes; and, for admins, the project's environments and their soak rules.
import { call, environmentOf, kindOf, namespaceIn, templatePath } from "./api.js";
import { describeChange, renderDiff } from "./diff.js";
import { describeValue } from "./template.js";
import { button, el, field, replace, select, tableRegion } from "./dom.js";
import * as session from "./session.js";

let message;
let drift;
let sides;
let promotion;
let review;
let manage;
let loads = 0;

const here = () => session.scope();
const nameOf = (id) => session.environments().find((environment) => environment.id === id)?.displayName || id;

export function mount(container) {
  message = el("p", { class: "result", role: "status", "aria-live": "polite" });
  drift = el("div");
  sides = el("div");
  promotion = el("div");
  review = el("div", { class: "history-output", tabIndex: -1 });
  manage = el("div");
  replace(container,
    el("h2", { tabIndex: -1, text: "Environments" }),
    el("p", { class: "hint", text: "Each environment has its own templates, versions and client keys; a change moves through them in order." }),
    message,
    el("h3", { text: "How this environment differs" }),
    drift,
    sides,
    el("h3", { text: "Promote into this environment" }),
    promotion,
    review,
    el("h3", { text: "The project's environments" }),
    manage);
  session.events.addEventListener("scope", () => {
    message.textContent = "";
    replace(review);
  });
}

/** Draws the view for the chosen template (when shown, and after a change). */
export async function load() {
  const load = ++loads;
  const { project, namespace } = here();
  const current = environmentOf(namespace);
  const others = session.environments().filter(({ id }) => id !== current);
  try {
    const comparisons = await Promise.all(others.map(({ id }) =>
      call("GET", `${templatePath(project, namespace, "compare")}?${new URLSearchParams({ with: id })}`).then(({ body }) => [id, body])));
    if (load !== loads) return;
    drawDrift(current, comparisons);
    drawSideBySide(current, comparisons);
    drawPromotion(current, others, comparisons);
  } catch (error) {
    if (load !== loads) return;
    replace(drift, el("p", { class: "hint", text: error.message }));
    replace(promotion);
  }
  drawManagement();
}

/** Per parameter, how this environment's template stands against each other one's. */
function drawDrift(current, comparisons) {
  if (comparisons.length === 0) {
    return replace(drift, el("p", { class: "hint", text: "This project has one environment: production. Add one below." }));
  }
  const states = new Map();
  for (const [id, { diff }] of comparisons) {
    const mark = (key, state) => {
      if (!states.has(key)) states.set(key, new Map());
      states.get(key).set(id, state);
    };
    for (const key of diff.addedParameters ?? []) mark(key, `only in ${nameOf(current)}`);
    for (const key of diff.removedParameters ?? []) mark(key, `only in ${nameOf(id)}`);
    for (const change of diff.changedParameters ?? []) mark(change.key, "differs");
  }
  if (states.size === 0) {
    return replace(drift, el("p", { class: "hint", text: `Every environment's ${kindName()} template has the same parameters as ${nameOf(current)}'s.` }));
  }
  const columns = comparisons.map(([id]) => id);
  replace(drift, tableRegion(el("table", { class: "drift" },
    el("caption", { text: `Parameters of ${nameOf(current)} that differ elsewhere` }),
    el("thead", {}, el("tr", {}, el("th", { scope: "col", text: "Parameter" }),
      ...columns.map((id) => el("th", { scope: "col", text: nameOf(id) })))),
    el("tbody", {}, ...[...states.keys()].sort().map((key) => el("tr", { dataset: { key } },
      el("th", { scope: "row", text: key }),
      ...columns.map((id) => el("td", { class: states.get(key).has(id) ? "differs" : "", text: states.get(key).get(id) ?? "same" })))))),
  "Parameters that differ between environments"));
}

/** The differing parameters' values in this environment and one other, side by side. */
function drawSideBySide(current, comparisons) {
  if (comparisons.length === 0) return replace(sides);
  const other = select(comparisons.map(([id]) => [id, nameOf(id)]), comparisons[0][0]);
  const table = el("div");
  const draw = () => {
    const diff = comparisons.find(([id]) => id === other.value)?.[1].diff ?? {};
    const held = (side, key) => (diff[side]?.parameters ?? []).find((parameter) => parameter?.key === key);
    const absent = "(not in this environment)";
    const rows = [
      ...(diff.addedParameters ?? []).map((key) => [key, describeValue(held("added", key)?.defaultValue), absent]),
      ...(diff.removedParameters ?? []).map((key) => [key, absent, describeValue(held("removed", key)?.defaultValue)]),
      ...(diff.changedParameters ?? []).map((change) => change.defaultValue
        ? [change.key, describeValue(change.defaultValue.to), describeValue(change.defaultValue.from)]
        : [change.key, describeChange(change), "the same default"]),
    ].sort(([one], [two]) => one.localeCompare(two));
    if (rows.length === 0) return replace(table, el("p", { class: "hint", text: `${nameOf(current)} and ${nameOf(other.value)} hold the same parameters.` }));
    replace(table, tableRegion(el("table", { class: "side-by-side" },
      el("caption", { text: `Default values, ${nameOf(current)} beside ${nameOf(other.value)}` }),
      el("thead", {}, el("tr", {}, ...["Parameter", nameOf(current), nameOf(other.value)].map((text) => el("th", { scope: "col", text })))),
      el("tbody", {}, ...rows.map(([key, here, there]) => el("tr", { dataset: { key } },
        el("th", { scope: "row", text: key }), el("td", { class: "value", text: here }), el("td", { class: "value", text: there }))))),
    "Values side by side"));
  };
  other.addEventListener("change", draw);
  replace(sides, el("div", { class: "toolbar compact" }, field("Side by side with", other)), table);
  draw();
}

function kindName() {
  return kindOf(here().namespace) === "firebase" ? "client" : "server";
}

/**
 * Promotion into this environment: from which, and the whole template or the parameters that
 * differ; reviewed against the server's diff before it is made.
 */
function drawPromotion(current, others, comparisons) {
  if (others.length === 0 || !session.can("editor")) {
    return replace(promotion, el("p", { class: "hint", text: others.length === 0
      ? "There is no other environment to promote from." : "Promoting needs the editor role on this environment." }));
  }
  const from = select(others.map(({ id, displayName }) => [id, displayName || id]), others.at(-1).id);
  const choices = el("fieldset", { class: "candidates" });
  const drawChoices = () => {
    const diff = comparisons.find(([id]) => id === from.value)?.[1].diff ?? {};
    // What `from` has that this one lacks or holds otherwise: removed here means only there.
    const keys = [...(diff.removedParameters ?? []), ...(diff.changedParameters ?? []).map((change) => change.key),
      ...(diff.addedParameters ?? [])].sort();
    replace(choices, el("legend", { text: "Only these parameters (none chosen: the whole template)" }),
      ...(keys.length ? keys.map((key) => el("label", {}, el("input", { type: "checkbox", value: key }), ` ${key}`))
        : [el("p", { class: "hint", text: "No parameter differs." })]));
  };
  from.addEventListener("change", () => {
    drawChoices();
    replace(review);
  });
  drawChoices();
  replace(promotion,
    el("div", { class: "toolbar compact" }, field("From", from)),
    choices,
    button(`Review promotion into ${nameOf(current)}…`, () => showReview(current, from.value, chosen(choices)), { class: "primary" }));
}

const chosen = (choices) => [...choices.querySelectorAll("input:checked")].map((box) => box.value);

/** What the promotion would change here (the server's compare, narrowed to the chosen parameters), then the explicit step. */
async function showReview(current, from, keys) {
  const { project, namespace } = here();
  try {
    const { body } = await call("GET", `${templatePath(project, namespaceIn(from, kindOf(namespace)), "compare")}?${new URLSearchParams({ with: current })}`);
    const diff = keys.length ? narrowed(body.diff, keys) : body.diff;
    const what = keys.length ? `${keys.join(", ")} from ${nameOf(from)}` : `${nameOf(from)}'s whole template (version ${body.to})`;
    replace(review,
      el("h3", { text: `Promoting ${what} into ${nameOf(current)} changes` }),
      renderDiff(diff),
      el("div", { class: "actions" },
        button("Promote", () => promote(current, from, keys), { class: "primary" }),
        button("Cancel", () => replace(review))));
  } catch (error) {
    replace(review, el("p", { class: "result error", text: error.message }));
  }
  review.focus();
}

/** The diff's parameter parts for `keys` only (the conditions they use come along, shown whole). */
function narrowed(diff, keys) {
  const wanted = new Set(keys);
  return {
    ...diff,
    addedParameters: (diff.addedParameters ?? []).filter((key) => wanted.has(key)),
    removedParameters: (diff.removedParameters ?? []).filter((key) => wanted.has(key)),
    changedParameters: (diff.changedParameters ?? []).filter((change) => wanted.has(change.key)),
    addedGroups: [], removedGroups: [], changedGroups: [],
  };
}

async function promote(current, from, keys) {
  const { project, namespace } = here();
  const body = { from, ...(keys.length ? { parameters: keys } : {}) };
  say("Promoting…");
  try {
    const { body: answer } = await call("POST", templatePath(project, namespace, "promoteFrom"), { body });
    replace(review);
    if (answer.changeRequest) {
      const request = answer.changeRequest;
      say(`Proposed change request #${request.id} promoting ${answer.promotedFrom}: it needs ${request.requiredApprovals} approval`
        + `${request.requiredApprovals === 1 ? "" : "s"}. Follow it in Changes.`, "ok");
    } else {
      say(`Promoted ${answer.promotedFrom} into ${nameOf(current)}: version ${answer.template?.version?.versionNumber}.`, "ok");
    }
    await load();
  } catch (error) {
    say(error.message, "error");
  }
}

/** The environments in order; admins add one and set a soak rule. */
function drawManagement() {
  const list = session.environments();
  const admin = session.canOnProject("admin");
  const rows = list.map((environment) => {
    const soak = el("input", { type: "number", min: 0, max: 2160, value: String(Math.round((environment.soakSeconds ?? 0) / 3600)),
      disabled: !admin, "aria-label": `Soak hours for ${environment.displayName || environment.id}` });
    return el("tr", {},
      el("th", { scope: "row", text: environment.displayName || environment.id }),
      el("td", { text: environment.id }),
      el("td", {}, soak),
      el("td", { class: "actions" }, admin
        ? button("Save soak", () => setSoak(environment, Number(soak.value)), { "aria-label": `Save soak of ${environment.displayName || environment.id}` })
        : null));
  });
  const id = el("input", { type: "text", autocomplete: "off", spellcheck: false, maxLength: 30, placeholder: "staging" });
  replace(manage,
    tableRegion(el("table", { class: "environments" },
      el("caption", { text: "In the order a change moves through them" }),
      el("thead", {}, el("tr", {}, ...["Environment", "Id", "Soak (hours)", "Actions"].map((text) => el("th", { scope: "col", text })))),
      el("tbody", {}, ...rows)), "Environments"),
    el("p", { class: "hint", text: "Soak: a version is promoted here only once it has been active this long in the environment it comes from." }),
    admin ? el("form", { class: "toolbar compact", on: { submit: (event) => { event.preventDefault(); add(id.value.trim()); } } },
      field("New environment id", id), el("button", { type: "submit", text: "Add environment" })) : null);
}

async function add(id) {
  const { project } = here();
  try {
    await call("POST", `/v1/projects/${encodeURIComponent(project)}/environments`, { body: { id } });
    await refreshEnvironments();
    say(`Added ${id}: choose it above to edit its templates.`, "ok");
  } catch (error) {
    say(error.message, "error");
  }
}

async function setSoak(environment, hours) {
  const { project } = here();
  try {
    await call("PATCH", `/v1/projects/${encodeURIComponent(project)}/environments/${encodeURIComponent(environment.id)}`,
      { body: { soakSeconds: Math.round(hours * 3600) } });
    await refreshEnvironments();
    say(`${environment.displayName || environment.id} takes versions active ${hours} h before it.`, "ok");
  } catch (error) {
    say(error.message, "error");
  }
}

async function refreshEnvironments() {
  const { project } = here();
  const { body } = await call("GET", `/v1/projects/${encodeURIComponent(project)}/environments`);
  session.setEnvironments(body.environments ?? []);
  session.events.dispatchEvent(new Event("environments"));
  await load();
}

function say(text, kind = "") {
  message.textContent = text;
  message.className = `result ${kind}`.trim();
}
