// What the signed-in page holds: the chosen project and namespace, and for each template the
// version loaded (with its ETag) and the draft being edited. Views listen to `events`:
//   "scope"     another project or namespace was chosen
//   "replaced"  the draft was (re)loaded or imported: render it anew
//   "structure" the draft gained, lost, renamed or moved something: render it anew
//   "edited"    a value in the draft changed (the view that changed it is already up to date)
//   "issues"    the server's validation problems changed
import { call, templatePath } from "./api.js";
import { canonicalJSON, content, normalize } from "./template.js";
import { setIssue } from "./dom.js";

/** Replaced on sign-out, so views mounted afresh do not hear the old ones' listeners. */
export let events = new EventTarget();

const state = {
  projects: [],
  project: "",
  namespace: "firebase",
  /** "project\nnamespace" → {base, etag, draft}: switching keeps every draft. */
  workspaces: new Map(),
  issues: [],
  /** Who is signed in (`/v1/me`): their id, name, whether they own the server, roles by project. */
  me: null,
  /** The chosen template's approval policy (`…/changePolicy`). */
  policy: null,
};

const ROLES = ["viewer", "editor", "publisher", "admin"];

/** Fields by the template path they edit, so the server's problems appear beside them. */
const fields = new Map();

function emit(name) {
  events.dispatchEvent(new Event(name));
}

export function projects() {
  return state.projects;
}

export function scope() {
  return { project: state.project, namespace: state.namespace };
}

export function setProjects(list) {
  state.projects = list;
}

export function setMe(me) {
  state.me = me;
}

/** The chosen template's approval policy, or null before it is known. */
export function policy() {
  return state.policy;
}

export function setPolicy(policy) {
  state.policy = policy;
  emit("policy");
}

/** Who is signed in (`/v1/me`), or null. */
export function me() {
  return state.me;
}

/** The role held on the chosen project ("owner" for an owner of the server), or "". */
export function role() {
  if (!state.me) return "";
  if (state.me.owner) return "owner";
  // A role on "*" (given by the identity provider's claims) holds on every project.
  const here = state.me.roles?.[state.project] ?? "";
  const everywhere = state.me.roles?.["*"] ?? "";
  return ROLES.indexOf(everywhere) > ROLES.indexOf(here) ? everywhere : here;
}

/** Whether the signed-in token holds `needed` (or more) on the chosen project. */
export function can(needed) {
  const held = role();
  return held === "owner" || (needed !== "owner" && ROLES.indexOf(held) >= ROLES.indexOf(needed));
}

export async function choose(project, namespace) {
  state.project = project;
  state.namespace = namespace;
  state.issues = [];
  state.policy = null;
  emit("scope");
  if (!workspace()) await reload();
  else emit("replaced");
}

function workspace() {
  return state.workspaces.get(`${state.project}\n${state.namespace}`);
}

/** The template being edited (a JSON object, changed in place by the editor views). */
export function draft() {
  return workspace()?.draft;
}

/** The version the draft started from, as the server sent it. */
export function base() {
  return workspace()?.base;
}

export function etag() {
  return workspace()?.etag;
}

export function hasTemplate() {
  return Boolean(workspace());
}

export function isDirty() {
  const space = workspace();
  return Boolean(space) && canonicalJSON(content(space.base)) !== canonicalJSON(content(space.draft));
}

/** Loads the active template, replacing the draft. */
export async function reload() {
  const { body, etag: tag } = await call("GET", templatePath(state.project, state.namespace));
  adopt(body, tag);
}

/** Makes a template the server sent the new starting point (after a load or a publish). */
export function adopt(template, tag) {
  state.workspaces.set(`${state.project}\n${state.namespace}`,
    { base: normalize(template), etag: tag, draft: normalize(content(template)) });
  setIssues([]);
  emit("replaced");
}

/** Replaces the draft (an imported file), keeping the version it is based on. */
export function replaceDraft(template) {
  workspace().draft = normalize(content(template));
  setIssues([]);
  emit("replaced");
}

export function edited() {
  emit("edited");
}

export function restructured() {
  emit("structure");
  applyIssues();
}

/** Forgets everything (signing out). */
export function clear() {
  events = new EventTarget();
  state.projects = [];
  state.project = "";
  state.me = null;
  state.policy = null;
  state.workspaces.clear();
  state.issues = [];
  fields.clear();
}

// MARK: validation problems beside their fields

export function registerField(path, fieldNode) {
  fields.set(path, fieldNode);
}

export function issues() {
  return state.issues;
}

export function setIssues(list) {
  state.issues = list;
  applyIssues();
  emit("issues");
}

/** The registered field whose path is the longest prefix of `path` (at a member boundary). */
export function fieldFor(path) {
  let best = null;
  let bestLength = -1;
  for (const [candidate, node] of fields) {
    if (!node.isConnected) {
      fields.delete(candidate);
      continue;
    }
    const matches = path === candidate || path.startsWith(`${candidate}.`) || path.startsWith(`${candidate}[`);
    if (matches && candidate.length > bestLength) {
      best = node;
      bestLength = candidate.length;
    }
  }
  return best;
}

/** Puts each problem beside its field (opening the cards that hold it), clearing old ones. */
export function applyIssues() {
  const messages = new Map();
  for (const issue of state.issues) {
    const node = issue.path ? fieldFor(issue.path) : null;
    if (!node) continue;
    const list = messages.get(node) || [];
    list.push(issue.message);
    messages.set(node, list);
  }
  for (const node of fields.values()) {
    if (!node.isConnected) continue;
    const list = messages.get(node);
    setIssue(node, list ? list.join("; ") : "");
    if (list) for (let up = node.closest("details"); up; up = up.parentElement.closest("details")) up.open = true;
  }
}

/** Asks the page to show the view holding `fieldNode` and focus it ("reveal" event). */
export function reveal(fieldNode) {
  events.dispatchEvent(new CustomEvent("reveal", { detail: fieldNode }));
}
