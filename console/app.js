// The console's entry: signing in and out, choosing the project and namespace, switching between
// the views, and what happens when the sign-in ends under the page.
import { call, environmentOf, forgetToken, hasSession, kindOf, namespaceIn, setSession, setToken, whenSignInEnds } from "./api.js";
import { button, el, replace } from "./dom.js";
import * as session from "./session.js";
import * as parameters from "./parameters.js";
import * as conditions from "./conditions.js";
import * as groups from "./groups.js";
import * as history from "./history.js";
import * as evaluate from "./evaluate.js";
import * as live from "./live.js";
import * as publish from "./publish.js";
import * as access from "./access.js";
import * as changes from "./changes.js";
import * as webhooks from "./webhooks.js";
import * as insights from "./insights.js";
import * as environments from "./environments.js";
import * as conflicts from "./conflicts.js";
import * as drafts from "./drafts.js";

const views = { parameters, conditions, groups, history, changes, evaluate, live, insights, environments, access, webhooks };
/** The views that edit the draft, shown below the draft bar. */
const editing = new Set(["parameters", "conditions", "groups"]);
/** Views only an admin of the project can use: not offered to anyone else. */
const adminOnly = new Set(["access", "webhooks"]);
const byId = (id) => document.getElementById(id);
let current = "parameters";
/** How the page signed in: "session" (the identity provider) or "token". */
let signedInWith = "";
/** The identity provider the server offers ({name, loginURL}), or null. */
let provider = null;

function mountViews() {
  publish.mount(byId("draft-bar"));
  for (const [name, view] of Object.entries(views)) view.mount(byId(`view-${name}`));
  session.events.addEventListener("reveal", (event) => reveal(event.detail));
  session.events.addEventListener("show-parameters", (event) => {
    show("parameters");
    parameters.filterBy(event.detail);
  });
  session.events.addEventListener("replaced", () => {
    if (current === "history") history.load();
    if (current === "changes") changes.load();
    if (current === "access") access.load();
    if (current === "webhooks") webhooks.load();
    if (current === "insights") insights.load();
    if (current === "environments") environments.load();
  });
  session.events.addEventListener("environments", offerEnvironments);
  session.events.addEventListener("scope", offerViewsByRole);
}

function show(name, { focus = true } = {}) {
  current = name;
  for (const key of Object.keys(views)) byId(`view-${key}`).hidden = key !== name;
  // The parameters stay laid out while away (skipped, not hidden): coming back is then quick.
  // Skipped content is neither drawn nor focused nor read out; making it inert as well would
  // restyle every card each way.
  const list = byId("view-parameters");
  list.hidden = false;
  list.classList.toggle("away", name !== "parameters");
  for (const item of document.querySelectorAll("nav.views button")) {
    if (item.dataset.view === name) item.setAttribute("aria-current", "page");
    else item.removeAttribute("aria-current");
  }
  byId("draft-bar").hidden = !editing.has(name);
  if (name === "live") live.start();
  else live.stop();
  views[name].shown?.();
  if (name === "history") history.load();
  if (name === "changes") changes.load();
  if (name === "access") access.load();
  if (name === "webhooks") webhooks.load();
  if (name === "insights") insights.load();
  if (name === "environments") environments.load();
  if (focus) byId(`view-${name}`).querySelector("h2").focus();
}

/** Offers the views the role on the chosen project can use; Access and Webhooks are for its admins. */
function offerViewsByRole() {
  const admin = session.canOnProject("admin");
  for (const item of document.querySelectorAll("nav.views button")) {
    item.hidden = adminOnly.has(item.dataset.view) && !admin;
  }
  if (adminOnly.has(current) && !admin) show("parameters", { focus: false });
}

/** Shows the view that holds a field the server named, and puts focus in it. */
function reveal(fieldNode) {
  const view = fieldNode.closest("[data-view]");
  if (!view) return;
  show(view.dataset.view, { focus: false });
  for (let up = fieldNode.closest("details"); up; up = up.parentElement.closest("details")) up.open = true;
  (fieldNode.control || fieldNode).focus();
}

function status(text) {
  byId("page-status").textContent = text;
}

async function signIn(event) {
  event.preventDefault();
  const input = byId("token");
  const error = byId("sign-in-error");
  const token = input.value.trim();
  error.hidden = true;
  if (!token) {
    error.textContent = "Enter an admin token.";
    error.hidden = false;
    return input.focus();
  }
  setToken(token);
  let answer;
  try {
    answer = await call("GET", "/v1/projects");
  } catch (failure) {
    forgetToken();
    error.textContent = failure.status === 401 || failure.status === 403
      ? `This token was refused: ${failure.message}`
      : failure.message;
    error.hidden = false;
    input.setAttribute("aria-invalid", "true");
    return input.focus();
  }
  input.value = "";
  input.removeAttribute("aria-invalid");
  signedInWith = "token";
  await enter(answer.body.projects || []);
}

/** Opens the workspace on `list` once the credentials were accepted. */
async function enter(list) {
  session.setProjects(list);
  try {
    session.setMe((await call("GET", "/v1/me")).body);
  } catch {
    // An older server without /v1/me: every button stays offered, the server still decides.
    session.setMe(null);
  }
  const me = session.me();
  byId("who").textContent = me ? `Signed in as ${me.displayName || me.name}` : "";
  replace(byId("project"), ...list.map((project) =>
    el("option", { value: project.projectId, text: project.displayName && project.displayName !== project.projectId
      ? `${project.displayName} (${project.projectId})` : project.projectId })));
  replace(byId("signed-out"));
  byId("signed-out").hidden = true;
  byId("sign-in").hidden = true;
  byId("workspace").hidden = false;
  byId("scope").hidden = false;
  status("");
  if (list.length === 0) return status("No projects yet: create one with POST /v1/projects.");
  await chooseProject();
  show("parameters");
  conflicts.start();
}

/** On load: offers the identity provider when the server has one, and resumes its session. */
async function resume() {
  let answer;
  try {
    answer = (await call("GET", "/auth/session")).body || {};
  } catch {
    return;
  }
  provider = answer.provider ?? null;
  if (provider) {
    byId("provider-link").textContent = `Sign in with ${provider.name}`;
    byId("provider-link").href = loginURL();
    byId("provider-sign-in").hidden = false;
  }
  if (!answer.session) return;
  setSession(answer.session.csrfToken);
  signedInWith = "session";
  try {
    await enter((await call("GET", "/v1/projects")).body.projects || []);
  } catch (failure) {
    forgetToken();
    status(failure.message);
  }
}

function loginURL() {
  return `${provider.loginURL}?returnTo=${encodeURIComponent("/console/")}`;
}

/** A project chosen: its environments are offered (the one chosen before kept where it has it). */
async function chooseProject() {
  const project = byId("project").value;
  let list = [{ id: "production", displayName: "Production" }];
  try {
    list = (await call("GET", `/v1/projects/${encodeURIComponent(project)}/environments`)).body.environments ?? list;
  } catch {
    // An older server, or one that refuses: production alone, as the Firebase paths serve it.
  }
  session.setEnvironments(list);
  offerEnvironments();
  await choose();
}

/** The environment select holds the project's environments, the chosen one kept where it still is. */
function offerEnvironments() {
  const select = byId("environment");
  const list = session.environments();
  const kept = list.some(({ id }) => id === select.value) ? select.value : "production";
  replace(select, ...list.map(({ id, displayName }) => el("option", { value: id, text: displayName || id, selected: id === kept })));
  select.value = kept;
}

async function choose() {
  status("");
  try {
    await session.choose(byId("project").value, namespaceIn(byId("environment").value, byId("namespace").value));
  } catch (failure) {
    status(failure.message);
  }
}

/** Leaves the workspace for the sign-in page; the drafts kept in the browser stay there. */
function leaveWorkspace() {
  current = "parameters";
  live.reset();
  conflicts.stop();
  session.clear();
  replace(byId("project"));
  byId("namespace").value = "firebase";
  replace(byId("environment"), el("option", { value: "production", text: "Production" }));
  mountViews();
  for (const item of document.querySelectorAll("nav.views button")) item.hidden = false;
  byId("workspace").hidden = true;
  byId("scope").hidden = true;
  byId("sign-in").hidden = false;
  byId("who").textContent = "";
  replace(byId("sign-out-question"));
}

/**
 * Signing out asks first when drafts would stay behind, and keeps them unless told otherwise:
 * they are kept in this browser for the same person's next sign-in.
 */
function askToSignOut() {
  session.keepAll();
  const mine = drafts.keptByOwner();
  if (mine.length === 0) return signOut("keep");
  const area = byId("sign-out-question");
  const names = mine.map(({ project, namespace }) => [project, environmentOf(namespace) === "production" ? null : environmentOf(namespace),
    `${kindOf(namespace) === "firebase" ? "client" : "server"} template`].filter(Boolean).join(", "));
  replace(area, el("div", { class: "confirm sign-out-question", role: "group", "aria-labelledby": "sign-out-title" },
    el("p", { id: "sign-out-title", class: "confirm-title", text: `Sign out? You have unpublished changes in ${mine.length === 1 ? "one template" : `${mine.length} templates`}.` }),
    el("ul", {}, ...names.map((name) => el("li", { text: name }))),
    el("p", { class: "hint", text: "Kept, they are offered back when you sign in again in this browser." }),
    el("div", { class: "actions" },
      button("Sign out and keep them", () => signOut("keep"), { class: "primary" }),
      button("Sign out and discard them", () => signOut("discard"), { class: "danger" }),
      button("Cancel", () => {
        replace(area);
        byId("sign-out").focus();
      }))));
  area.querySelector("button.primary").focus();
  return undefined;
}

async function signOut(drafted) {
  // A session ends on the server (on every node); a token is only forgotten.
  const ended = hasSession();
  if (ended) {
    try {
      await call("POST", "/auth/signOut");
    } catch (failure) {
      return status(`Signing out failed: ${failure.message}`);
    }
  }
  session.keepAll();
  const kept = drafts.keptByOwner().length;
  if (drafted === "discard") drafts.forgetOwner();
  drafts.setOwner("");
  forgetToken();
  signedInWith = "";
  leaveWorkspace();
  const what = ended ? "Signed out: the session is ended." : "Signed out: the token is forgotten.";
  status(drafted === "keep" && kept
    ? `${what} Your unpublished changes are kept in this browser for your next sign-in.` : what);
  byId("token").focus();
  return resume();
}

/**
 * The session ended under the page (signed out elsewhere, timed out, ended by an owner) or the
 * token was revoked: every draft is written to the browser, the workspace is left, and the way
 * back is offered at once. Signing in again offers the drafts back.
 */
function signInEnded(message) {
  const how = signedInWith;
  session.keepAll();
  const kept = drafts.keptByOwner().length;
  drafts.setOwner("");
  signedInWith = "";
  leaveWorkspace();
  status("");
  const area = byId("signed-out");
  const again = how === "session" && provider
    ? el("a", { class: "button primary", href: loginURL(), text: "Sign in again" })
    : button("Sign in again", () => byId("token").focus(), { class: "primary" });
  replace(area,
    el("h2", { tabIndex: -1, text: how === "session" ? "Your session has ended" : "Your token was refused" }),
    el("p", { text: message }),
    el("p", { text: kept
      ? "Your unpublished changes are kept in this browser: sign in again to carry on where you were."
      : "Nothing unpublished was lost." }),
    el("div", { class: "actions" }, again));
  area.hidden = false;
  area.querySelector("h2").focus();
}

/**
 * Ctrl/Cmd+Z undoes a step of the draft, Ctrl/Cmd+Shift+Z or Ctrl+Y redoes one. In a text field
 * the browser's own undo of the typing comes first: the keys are left to it there.
 */
function undoKeys(event) {
  if (!(event.ctrlKey || event.metaKey) || event.altKey || byId("workspace").hidden || !editing.has(current)) return;
  const key = event.key.toLowerCase();
  const redo = (key === "z" && event.shiftKey) || (key === "y" && !event.shiftKey);
  if (key !== "z" && !redo) return;
  const target = event.target;
  if (target.matches?.("textarea, input:not([type=checkbox]):not([type=radio]):not([type=range]):not([type=button])")) return;
  event.preventDefault();
  if (redo) session.redo();
  else session.undo();
}

mountViews();
drafts.guardUnload(session.anyDirty);
whenSignInEnds(signInEnded);
document.addEventListener("keydown", undoKeys);
byId("sign-in-form").addEventListener("submit", signIn);
byId("sign-out").addEventListener("click", askToSignOut);
byId("project").addEventListener("change", chooseProject);
byId("environment").addEventListener("change", choose);
byId("namespace").addEventListener("change", choose);
for (const item of document.querySelectorAll("nav.views button")) {
  item.addEventListener("click", () => show(item.dataset.view));
}
byId("token").focus();
resume();
