// The Access view: who is signed in and what they hold, the project's members and their roles,
// service accounts and their tokens (a new token's secret shown once), and the project's audit
// log. Each part shows what the server lets the signed-in token do; a refusal says which role
// it needs.
import { call } from "./api.js";
import { button, el, field, formatTime, replace, select, tableRegion } from "./dom.js";
import * as session from "./session.js";

const ROLES = ["viewer", "editor", "publisher", "admin"];
let who;
let message;
let members;
let tokens;
let audit;
let secret;
let principalOptions;

export function mount(container) {
  who = el("p", { class: "who" });
  message = el("p", { class: "result", role: "status", "aria-live": "polite" });
  members = el("div");
  tokens = el("div");
  audit = el("div");
  secret = el("div", { tabIndex: -1 });
  principalOptions = el("datalist", { id: "access-principals" });
  const account = el("input", { autocomplete: "off", spellcheck: false });
  const principal = el("input", { autocomplete: "off", spellcheck: false, list: "access-principals" });
  const role = select(ROLES.map((name) => [name, name]), "viewer");
  const tokenFor = el("input", { autocomplete: "off", spellcheck: false, list: "access-principals" });
  const tokenName = el("input", { autocomplete: "off", spellcheck: false });
  // A token holds at most this role on this project; an owner may leave it every role the account holds.
  const tokenRole = select([...ROLES.map((name) => [name, `${name} on this project`]), ["", "every role it holds (owner)"]], "viewer");
  replace(container,
    el("h2", { tabIndex: -1, text: "Access" }),
    who,
    message,
    principalOptions,
    el("h3", { text: "Members of this project" }),
    members,
    el("form", { class: "toolbar", on: { submit: (event) => { event.preventDefault(); giveRole(principal.value.trim(), role.value); } } },
      field("Principal", principal, { hint: "svc-… or an email address" }), field("Role", role),
      el("button", { type: "submit", text: "Give role" })),
    el("h3", { text: "Service accounts and tokens" }),
    el("form", { class: "toolbar", on: { submit: (event) => { event.preventDefault(); addAccount(account); } } },
      field("Service account name", account), el("button", { type: "submit", text: "Add service account" })),
    tokens,
    el("form", { class: "toolbar", on: { submit: (event) => { event.preventDefault(); makeToken(tokenFor.value.trim(), tokenName, tokenRole.value); } } },
      field("Token for", tokenFor), field("Token name", tokenName), field("Token holds", tokenRole),
      el("button", { type: "submit", text: "Make token" })),
    secret,
    el("h3", { text: "Audit log of this project" }),
    audit);
  session.events.addEventListener("scope", () => {
    replace(secret);
    message.textContent = "";
  });
}

/** Loads every part (when the view is shown, and after each change). */
export async function load() {
  const { project } = session.scope();
  const path = `/v1/projects/${encodeURIComponent(project)}`;
  // Only what the token may read is asked for; the rest says which role it needs.
  const needs = (role, request) => (session.canOnProject(role) ? request() : Promise.reject(new Error(`This needs the ${role} role.`)));
  const [me, memberList, tokenList, principals, entries] = await Promise.allSettled([
    call("GET", "/v1/me"), needs("admin", () => call("GET", `${path}/members`)), needs("admin", () => call("GET", "/v1/tokens")),
    needs("admin", () => call("GET", "/v1/principals")),
    needs("admin", () => call("GET", `/v1/auditLog?project=${encodeURIComponent(project)}&pageSize=50`))]);
  if (me.status === "fulfilled") {
    const body = me.value.body;
    const held = body.owner ? "owner of the server" : session.role() || "no role on this project";
    who.textContent = `Signed in as ${body.displayName || body.name} (${body.id}): ${held}.`;
  }
  replace(members, memberList.status === "fulfilled" ? membersTable(memberList.value.body.members || []) : refusal(memberList.reason));
  replace(tokens, tokenList.status === "fulfilled" ? tokensTable(tokenList.value.body.tokens || []) : refusal(tokenList.reason));
  const known = principals.status === "fulfilled" ? principals.value.body.principals || [] : [];
  replace(principalOptions, ...known.map((item) => el("option", { value: item.id, text: item.displayName })));
  replace(audit, entries.status === "fulfilled" ? auditTable(entries.value.body.entries || []) : refusal(entries.reason));
}

function refusal(error) {
  return el("p", { class: "hint", text: error.message });
}

function table(caption, headings, rows) {
  if (rows.length === 0) return el("p", { class: "hint", text: `${caption}: none yet.` });
  return tableRegion(el("table", { class: "access" },
    el("caption", { text: caption }),
    el("thead", {}, el("tr", {}, ...headings.map((heading) => el("th", { scope: "col", text: heading })))),
    el("tbody", {}, ...rows)), caption);
}

function membersTable(list) {
  return table("Members", ["Principal", "Role", "Actions"], list.map((member) => {
    const role = select(ROLES.map((name) => [name, name]), member.role, { "aria-label": `Role of ${member.principal}` });
    return el("tr", {},
      el("th", { scope: "row", text: member.principal }),
      el("td", {}, role),
      el("td", { class: "actions" },
        button("Change", () => giveRole(member.principal, role.value), { "aria-label": `Change the role of ${member.principal}` }),
        button("Remove", () => removeMember(member.principal), { class: "danger", "aria-label": `Remove ${member.principal}` })));
  }));
}

function tokensTable(list) {
  return table("Tokens", ["Id", "For", "Name", "State", "Actions"], list.map((token) => {
    const state = token.revokeTime ? `revoked ${formatTime(token.revokeTime)}`
      : token.expireTime ? `expires ${formatTime(token.expireTime)}` : "active";
    return el("tr", {},
      el("th", { scope: "row", text: token.id }),
      el("td", { text: token.principal }),
      el("td", { text: token.name }),
      el("td", { text: state }),
      el("td", { class: "actions" }, token.revokeTime ? null
        : button("Revoke", () => revoke(token.id), { class: "danger", "aria-label": `Revoke token ${token.id}` })));
  }));
}

function auditTable(entries) {
  return table("Newest first", ["Time", "Who", "Action", "What", "Outcome"], entries.map((entry) => el("tr", {},
    el("td", { text: formatTime(entry.time) }),
    el("td", { text: entry.actor?.id ?? "" }),
    el("td", { text: entry.action }),
    el("td", { text: [entry.target, entry.versionNumber && `version ${entry.versionNumber}`].filter(Boolean).join(" ") }),
    el("td", { text: entry.outcome }))));
}

async function change(work, done) {
  try {
    await work();
    message.textContent = done;
  } catch (error) {
    message.textContent = error.message;
  }
  await load();
}

function giveRole(principal, role) {
  if (!principal) return (message.textContent = "Name a principal (svc-… or an email address).");
  const { project } = session.scope();
  return change(() => call("PUT", `/v1/projects/${encodeURIComponent(project)}/members/${encodeURIComponent(principal)}`,
    { body: { role } }), `${principal} is ${role} on ${project}.`);
}

function removeMember(principal) {
  const { project } = session.scope();
  return change(() => call("DELETE", `/v1/projects/${encodeURIComponent(project)}/members/${encodeURIComponent(principal)}`),
    `${principal} holds no role on ${project} any more.`);
}

async function addAccount(input) {
  const displayName = input.value.trim();
  if (!displayName) return (message.textContent = "Give the service account a name.");
  let added = "";
  await change(async () => {
    added = (await call("POST", "/v1/principals", { body: { kind: "service", displayName } })).body.id;
  }, "Service account added.");
  if (added) {
    message.textContent = `Added ${added}.`;
    input.value = "";
  }
}

async function makeToken(principal, nameInput, role) {
  const name = nameInput.value.trim();
  if (!principal || !name) return (message.textContent = "Name the principal and the token.");
  const request = { principal, name };
  if (role) request.roles = { [session.scope().project]: role };
  try {
    const { body } = await call("POST", "/v1/tokens", { body: request });
    nameInput.value = "";
    replace(secret,
      el("p", { text: `Token ${body.id} for ${principal}: copy it now, it is shown this once.` }),
      el("pre", { class: "json secret", text: body.token }),
      button("Hide", () => replace(secret)));
    message.textContent = "";
    secret.focus();
  } catch (error) {
    message.textContent = error.message;
  }
  await load();
}

function revoke(id) {
  replace(secret);
  return change(() => call("DELETE", `/v1/tokens/${encodeURIComponent(id)}`), `Token ${id} revoked.`);
}
