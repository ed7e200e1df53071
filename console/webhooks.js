// The Webhooks view (docs/webhooks.md): the project's endpoints and the events each wants, a new
// endpoint (its signing secret shown once), a rotated secret, a test event, and each endpoint's
// delivery log with redelivery. Managing webhooks needs the project's admin role.
import { call } from "./api.js";
import { button, el, field, formatTime, replace, tableRegion } from "./dom.js";
import * as session from "./session.js";

const EVENTS = ["template.publish", "template.rollback", "canary.start", "canary.share", "canary.promote", "canary.abort",
  "changeRequest.created", "changeRequest.edited", "changeRequest.approved", "changeRequest.rejected",
  "changeRequest.cancelled", "changeRequest.scheduled", "changeRequest.applied", "changeRequest.conflicted",
  "schedule.applied", "schedule.failed", "parameter.stale"];

let list;
let message;
let secret;
let log;

const path = (suffix = "") => `/v1/projects/${encodeURIComponent(session.scope().project)}/webhooks${suffix}`;

export function mount(container) {
  list = el("div");
  message = el("p", { class: "result", role: "status", "aria-live": "polite" });
  secret = el("div", { tabIndex: -1 });
  log = el("div", { tabIndex: -1 });
  const url = el("input", { type: "url", autocomplete: "off", spellcheck: false, placeholder: "https://hooks.example.com/remote-config" });
  const description = el("input", { type: "text", autocomplete: "off", maxLength: 200 });
  const boxes = EVENTS.map((name) => el("input", { type: "checkbox", value: name, checked: name === "template.publish" }));
  replace(container,
    el("h2", { tabIndex: -1, text: "Webhooks" }),
    el("p", { class: "hint", text: "Signed per Standard Webhooks; a receiver checks webhook-signature with the endpoint's secret." }),
    message,
    list,
    secret,
    el("h3", { text: "Add an endpoint" }),
    el("form", { class: "webhook-form", on: { submit: (event) => { event.preventDefault(); add(url, description, boxes); } } },
      field("Endpoint URL", url), field("Description", description),
      el("fieldset", { class: "events" }, el("legend", { text: "Events it receives" }),
        ...boxes.map((box) => el("label", {}, box, ` ${box.value}`))),
      el("button", { type: "submit", class: "primary", text: "Add endpoint" })),
    log);
  session.events.addEventListener("scope", () => {
    replace(secret);
    replace(log);
    message.textContent = "";
  });
}

/** Loads the endpoints (when the view is shown, and after each change). */
export async function load() {
  if (!session.canOnProject("admin")) {
    replace(list, el("p", { class: "hint", text: "Managing webhooks needs the admin role on this project." }));
    return;
  }
  try {
    const { body } = await call("GET", path());
    const hooks = body.webhooks || [];
    if (hooks.length === 0) return replace(list, el("p", { class: "hint", text: "No endpoints yet." }));
    replace(list, tableRegion(el("table", { class: "webhooks" },
      el("caption", { text: "Endpoints" }),
      el("thead", {}, el("tr", {}, ...["URL", "Events", "Description", "Actions"].map((heading) => el("th", { scope: "col", text: heading })))),
      el("tbody", {}, ...hooks.map(row))), "Endpoints"));
  } catch (error) {
    replace(list, el("p", { class: "hint", text: error.message }));
  }
}

function row(hook) {
  return el("tr", {},
    el("th", { scope: "row", text: hook.url }),
    el("td", { text: hook.events.join(", ") }),
    el("td", { text: hook.description }),
    el("td", { class: "actions" },
      button("Send test event", () => act(`/${hook.id}:test`, "A test event is on its way.", hook.id),
        { "aria-label": `Send test event to ${hook.url}` }),
      button("Deliveries", () => deliveries(hook), { "aria-label": `Deliveries to ${hook.url}` }),
      button("Rotate secret", () => rotate(hook), { "aria-label": `Rotate secret of ${hook.url}` }),
      button("Delete", () => act(`/${hook.id}`, `Deleted ${hook.url}.`, null, "DELETE"),
        { class: "danger", "aria-label": `Delete ${hook.url}` })));
}

async function add(url, description, boxes) {
  const events = boxes.filter((box) => box.checked).map((box) => box.value);
  try {
    const { body } = await call("POST", path(), { body: { url: url.value.trim(), description: description.value.trim(), events } });
    url.value = "";
    description.value = "";
    showSecret(`Endpoint ${body.url} added. Its signing secret, shown this once:`, body.secret);
    message.textContent = "";
  } catch (error) {
    message.textContent = error.message;
  }
  await load();
}

async function rotate(hook) {
  try {
    const { body } = await call("POST", path(`/${hook.id}:rotateSecret`), { body: {} });
    const until = body.previousSecretExpireTime ? ` The old one keeps signing until ${formatTime(body.previousSecretExpireTime)}.` : "";
    showSecret(`New secret for ${hook.url}, shown this once.${until}`, body.secret);
  } catch (error) {
    message.textContent = error.message;
  }
}

function showSecret(text, value) {
  replace(secret, el("p", { text }), el("pre", { class: "json secret", text: value }), button("Hide", () => replace(secret)));
  secret.focus();
}

async function act(suffix, done, showDeliveriesOf, method = "POST") {
  try {
    await call(method, path(suffix), method === "POST" ? { body: {} } : {});
    message.textContent = done;
  } catch (error) {
    message.textContent = error.message;
  }
  await load();
  if (showDeliveriesOf) replace(log);
}

async function deliveries(hook) {
  let body;
  try {
    body = (await call("GET", path(`/${hook.id}/deliveries`))).body;
  } catch (error) {
    message.textContent = error.message;
    return;
  }
  const rows = (body.deliveries || []).map((delivery) => {
    const last = delivery.attempts?.at(-1);
    return el("tr", {},
      el("th", { scope: "row", text: delivery.eventType }),
      el("td", { text: delivery.state }),
      el("td", { text: String(delivery.attemptCount) }),
      el("td", { text: last ? `${last.status ?? last.error ?? ""} in ${last.latencyMs} ms, ${formatTime(last.time)}` : "" }),
      el("td", { text: last?.response ?? "" }),
      el("td", { class: "actions" }, button("Redeliver", async () => {
        await act(`/${hook.id}/deliveries/${delivery.id}:redeliver`, `Redelivering ${delivery.eventType}.`, null);
        await deliveries(hook);
      }, { "aria-label": `Redeliver ${delivery.eventType} ${delivery.id}` })));
  });
  replace(log,
    el("h3", { text: `Deliveries to ${hook.url}, newest first` }),
    rows.length === 0 ? el("p", { class: "hint", text: "Nothing delivered yet." })
      : tableRegion(el("table", { class: "deliveries" },
        el("caption", { text: "Deliveries, newest first" }),
        el("thead", {}, el("tr", {}, ...["Event", "State", "Attempts", "Last attempt", "Answer", "Actions"]
          .map((heading) => el("th", { scope: "col", text: heading })))),
        el("tbody", {}, ...rows)), `Deliveries to ${hook.url}`),
    button("Refresh", () => deliveries(hook)));
  log.focus();
}
