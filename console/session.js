// What the signed-in page holds: the chosen project and namespace, and for each template the
// version loaded (with its ETag) and the draft being edited. Views listen to `events`:
//   "scope"     another project or namespace was chosen
//   "replaced"  the draft was (re)loaded or imported: render it anew
//   "structure" the draft gained, lost, renamed or moved something: render it anew
//   "edited"    a value in the draft changed (the view that changed it is already up to date)
//   "issues"    the server's validation problems changed
//   "steps"     the undo or redo steps changed
// Each draft keeps its last steps for undo and redo, and is kept in the browser (drafts.js) so a
// reload or a closed tab does not lose it.
import { call, templatePath } from "./api.js";
import { canonicalJSON, content, normalize } from "./template.js";
import { setIssue } from "./dom.js";
import * as drafts from "./drafts.js";

/** Undo keeps this many steps (the issue asks for at least 20). */
const maxSteps = 100;
/** Keystrokes in one field closer together than this are one step. */
const typingPause = 1000;

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

function scopeKey() {
  return `${state.project}\n${state.namespace}`;
}

function workspace() {
  return state.workspaces.get(scopeKey());
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

function isDirtySpace(space) {
  if (!space) return false;
  // The base changes only on load, publish and merge: its reading is kept, not redone per keystroke.
  if (space.baseReading?.base !== space.base) space.baseReading = { base: space.base, text: canonicalJSON(content(space.base)) };
  return space.baseReading.text !== canonicalJSON(content(space.draft));
}

export function isDirty() {
  return isDirtySpace(workspace());
}

/** Whether any template of this page has unpublished changes (for the leave-page prompt). */
export function anyDirty() {
  return [...state.workspaces.values()].some(isDirtySpace);
}

/** Loads the active template, replacing the draft; offers a draft kept in the browser for it. */
export async function reload() {
  const { body, etag: tag } = await call("GET", templatePath(state.project, state.namespace));
  adopt(body, tag);
  const kept = drafts.read(state.project, state.namespace);
  if (kept && canonicalJSON(content(kept.draft)) !== canonicalJSON(content(body))) {
    workspace().kept = kept;
    emit("kept");
  } else if (kept) {
    drafts.forget(state.project, state.namespace);
  }
}

/** A draft kept in the browser from an earlier visit, not yet restored or dropped, or null. */
export function keptDraft() {
  return workspace()?.kept ?? null;
}

/**
 * Takes the kept draft back. Based on the version loaded now, it simply becomes the draft;
 * based on an older one, the draft keeps that older base, so the newer version is offered for
 * merging (conflicts.js) rather than silently overwritten.
 */
export function restoreKept() {
  const space = workspace();
  const kept = space.kept;
  space.kept = null;
  if (String(kept.base.version?.versionNumber ?? "0") !== String(space.base.version?.versionNumber ?? "0")) {
    space.base = normalize(kept.base);
    space.etag = kept.etag;
  }
  replaceDraft(kept.draft, "restore the kept draft");
}

export function dropKept() {
  workspace().kept = null;
  drafts.forget(state.project, state.namespace);
  emit("kept");
}

/** Makes a template the server sent the new starting point (after a load or a publish). */
export function adopt(template, tag) {
  const draft = normalize(content(template));
  state.workspaces.set(scopeKey(),
    { base: normalize(template), etag: tag, draft, undo: [], redo: [], snapshot: JSON.stringify(draft), kept: null, last: null });
  setIssues([]);
  emit("replaced");
  emit("steps");
  keep();
}

/**
 * Takes a newer version as the base and `merged` as the draft (conflicts.js), as one step that
 * undo takes back.
 */
export function rebase(template, tag, merged) {
  const space = workspace();
  space.base = normalize(template);
  space.etag = tag;
  replaceDraft(merged, "merge");
}

/** Replaces the draft (an imported file, a merge), keeping the version it is based on. */
export function replaceDraft(template, label = "import") {
  workspace().draft = normalize(content(template));
  setIssues([]);
  record(label, false);
  emit("replaced");
}

/** A value in the draft changed (typing): consecutive keystrokes in one field are one step. */
export function edited(label = "edit") {
  record(label, true);
  emit("edited");
}

/** The draft gained, lost, renamed or moved something: one step. */
export function restructured(label = "change") {
  record(label, false);
  emit("structure");
  applyIssues();
}

// MARK: undo and redo

/** Makes the change since the last snapshot an undo step (or part of the typing step before it). */
function record(label, typing) {
  const space = workspace();
  if (!space) return;
  const now = JSON.stringify(space.draft);
  if (now === space.snapshot) return;
  const time = Date.now();
  const joins = typing && space.last?.typing && space.last.label === label && time - space.last.time < typingPause;
  if (!joins) {
    space.undo.push({ text: space.snapshot, label });
    if (space.undo.length > maxSteps) space.undo.shift();
  }
  space.last = { label, typing, time };
  space.redo = [];
  space.snapshot = now;
  emit("steps");
  keep();
}

/** {undo, redo}: the label of the step each would take back or again, or "". */
export function steps() {
  const space = workspace();
  return { undo: space?.undo.at(-1)?.label ?? "", redo: space?.redo.at(-1)?.label ?? "" };
}

function step(from, to) {
  const space = workspace();
  const taken = space?.[from].pop();
  if (!taken) return;
  space[to].push({ text: space.snapshot, label: taken.label });
  space.draft = JSON.parse(taken.text);
  space.snapshot = taken.text;
  space.last = null;
  emit("structure");
  applyIssues();
  emit("steps");
  keep();
}

export function undo() {
  step("undo", "redo");
}

export function redo() {
  step("redo", "undo");
}

/** Keeps the draft in the browser while it differs from its base, and forgets it when not. */
function keep() {
  const space = workspace();
  if (!space || space.kept) return;
  const { project, namespace } = state;
  // Decided when written: a draft kept from an earlier visit, not yet answered, is left alone.
  drafts.schedule(project, namespace, () => {
    if (space.kept) return undefined;
    return isDirtySpace(space) ? { base: space.base, etag: space.etag, draft: space.draft } : null;
  });
}

/** Forgets everything (signing out). */
export function clear() {
  drafts.forgetAll();
  events = new EventTarget();
  state.projects = [];
  state.project = "";
  state.me = null;
  state.policy = null;
  state.workspaces.clear();
  state.issues = [];
  fields.clear();
  marked.clear();
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
  // Views that build fields only when shown (parameter cards) make the ones named here.
  emit("issues-arrived");
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

/** Fields that show a message of the server's, so only those are cleared (not the checks made as typed). */
const marked = new Set();

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
  for (const node of marked) {
    if (!messages.has(node)) setIssue(node, "");
  }
  marked.clear();
  for (const [node, list] of messages) {
    setIssue(node, list.join("; "));
    marked.add(node);
    for (let up = node.closest("details"); up; up = up.parentElement.closest("details")) up.open = true;
  }
}

/** Asks the page to show the parameters that use condition `name` ("show-parameters" event). */
export function showParametersUsing(name) {
  events.dispatchEvent(new CustomEvent("show-parameters", { detail: name }));
}

/** Asks the page to show the view holding `fieldNode` and focus it ("reveal" event). */
export function reveal(fieldNode) {
  events.dispatchEvent(new CustomEvent("reveal", { detail: fieldNode }));
}
