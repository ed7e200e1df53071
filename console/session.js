// What the signed-in page holds: the chosen project and namespace, and for each template the
// version loaded (with its ETag) and the draft being edited. Views listen to `events`:
//   "scope"     another project or namespace was chosen
//   "replaced"  the draft was (re)loaded or imported: render it anew
//   "structure" the draft gained, lost, renamed or moved something: render it anew
//   "edited"    a value in the draft changed (the view that changed it is already up to date)
//   "issues"    the server's validation problems changed
//   "steps"     the undo or redo steps changed ("stepped": one was taken, with the units it changed)
//   "proposal"  the draft was proposed as a change request, or that request settled
// Each draft keeps its last steps for undo and redo, and is kept in the browser (drafts.js), steps
// included, so a reload, a closed tab, signing out or an ended session does not lose it.
import { call, environmentOf, templatePath } from "./api.js";
import { canonicalJSON, content, normalize } from "./template.js";
import { setIssue } from "./dom.js";
import * as drafts from "./drafts.js";

/** Undo keeps this many steps. */
const maxSteps = 100;
/** Keystrokes in one field closer together than this are one step. */
const typingPause = 1000;

/** Replaced on sign-out, so views mounted afresh do not hear the old ones' listeners. */
export let events = new EventTarget();

const state = {
  projects: [],
  project: "",
  namespace: "firebase",
  /** "project\nnamespace" → {base, etag, draft, steps, proposal}: switching keeps every draft. */
  workspaces: new Map(),
  issues: [],
  /** Who is signed in (`/v1/me`): their id, name, whether they own the server, roles by project. */
  me: null,
  /** The chosen template's approval policy (`…/changePolicy`). */
  policy: null,
  /** The chosen project's environments, in order ({id, displayName, soakSeconds}). */
  environments: [],
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
  drafts.setOwner(me?.id ?? "");
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

export function environments() {
  return state.environments;
}

export function setEnvironments(list) {
  state.environments = list;
}

/** The role held on the chosen project ("owner" for an owner of the server), or "". */
export function projectRole() {
  if (!state.me) return "";
  if (state.me.owner) return "owner";
  // A role on "*" (given by the identity provider's claims) holds on every project.
  const here = state.me.roles?.[state.project] ?? "";
  const everywhere = state.me.roles?.["*"] ?? "";
  return ROLES.indexOf(everywhere) > ROLES.indexOf(here) ? everywhere : here;
}

/**
 * The role held on the chosen template: the one the membership names on its environment, else
 * the project's (docs/access.md, "Roles per environment").
 */
export function role() {
  if (state.me?.owner) return "owner";
  return state.me?.environmentRoles?.[state.project]?.[environmentOf(state.namespace)] ?? projectRole();
}

function holds(held, needed) {
  return held === "owner" || (needed !== "owner" && ROLES.indexOf(held) >= ROLES.indexOf(needed));
}

/** Whether the signed-in token holds `needed` (or more) on the chosen template. */
export function can(needed) {
  return holds(role(), needed);
}

/** Whether it holds `needed` (or more) on the chosen project: its keys, members, webhooks, environments. */
export function canOnProject(needed) {
  return holds(projectRole(), needed);
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

/**
 * Whether the draft differs from the version it is based on: what publishing would change. A
 * draft proposed for review still differs (isAtRisk tells the two apart).
 */
export function isDirty() {
  return Boolean(workspace()?.dirty);
}

/**
 * Whether the draft holds changes found nowhere else: it differs from its version and from the
 * change request it was proposed as. Such a draft is what leaving or signing out would lose.
 */
export function isAtRisk() {
  return atRisk(workspace());
}

function atRisk(space) {
  return Boolean(space?.dirty && !space.matchesProposal);
}

/** Whether any template of this page holds changes found nowhere else (the leave-page prompt). */
export function anyDirty() {
  return [...state.workspaces.values()].some(atRisk);
}

/** The templates with changes found nowhere else: [{project, namespace}]. */
export function atRiskScopes() {
  return [...state.workspaces.entries()].filter(([, space]) => atRisk(space)).map(([key]) => {
    const [project, namespace] = key.split("\n");
    return { project, namespace };
  });
}

/**
 * Loads the active template, replacing the draft. A draft kept in the browser for it is offered
 * back; one that only holds what its pending change request proposes is taken back at once (it
 * is not at risk, and the page then follows that request).
 */
export async function reload() {
  const { body, etag: tag } = await call("GET", templatePath(state.project, state.namespace));
  adopt(body, tag);
  const kept = drafts.read(state.project, state.namespace);
  const space = workspace();
  if (!kept) return;
  const keptUnits = unitsOf(normalize(content(kept.draft)));
  if (sameUnits(keptUnits, space.units)) {
    drafts.forget(state.project, state.namespace);
    return;
  }
  space.kept = kept;
  if (kept.proposal && sameUnits(keptUnits, unitsOf(normalize(content(kept.proposal.template))))) {
    restoreKept();
    return;
  }
  emit("kept");
}

/** A draft kept in the browser from an earlier visit, not yet restored or dropped, or null. */
export function keptDraft() {
  return workspace()?.kept ?? null;
}

/**
 * Takes the kept draft back, with its undo and redo steps and its change request. Based on the
 * version loaded now, it simply becomes the draft; based on an older one, the draft keeps that
 * older base, so the newer version is offered for merging (conflicts.js) rather than silently
 * overwritten.
 */
export function restoreKept() {
  const space = workspace();
  const kept = space.kept;
  space.kept = null;
  if (String(kept.base.version?.versionNumber ?? "0") !== String(space.base.version?.versionNumber ?? "0")) {
    setBase(space, normalize(kept.base), kept.etag);
  }
  space.draft = normalize(content(kept.draft));
  space.units = unitsOf(space.draft);
  space.undo = Array.isArray(kept.undo) ? kept.undo : [];
  space.redo = Array.isArray(kept.redo) ? kept.redo : [];
  space.last = null;
  space.proposal = kept.proposal ? withUnits(kept.proposal) : null;
  settle(space);
  setIssues([]);
  emit("replaced");
  emit("steps");
  keep();
}

export function dropKept() {
  workspace().kept = null;
  drafts.forget(state.project, state.namespace);
  emit("kept");
}

/** Makes a template the server sent the new starting point (after a load or a publish). */
export function adopt(template, tag) {
  const draft = normalize(content(template));
  const space = { draft, undo: [], redo: [], kept: null, last: null, proposal: null };
  setBase(space, normalize(template), tag);
  space.units = unitsOf(draft);
  settle(space);
  state.workspaces.set(scopeKey(), space);
  setIssues([]);
  emit("replaced");
  emit("steps");
  keep();
}

/**
 * Takes a newer version as the base and `merged` as the draft (conflicts.js), as one step that
 * undo takes back.
 */
export function rebase(template, tag, merged, label = "merge") {
  const space = workspace();
  setBase(space, normalize(template), tag);
  replaceDraft(merged, label);
}

/** Replaces the draft (an imported file, a merge), keeping the version it is based on. */
export function replaceDraft(template, label = "import") {
  const space = workspace();
  const next = normalize(content(template));
  const units = unitsOf(next);
  const delta = deltaBetween(space.units, units);
  space.draft = next;
  space.units = units;
  if (delta.length) pushStep(space, { label, delta }, false);
  settle(space);
  setIssues([]);
  emit("replaced");
  emit("steps");
  keep();
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

// MARK: what the draft holds, as units

// A template as units: each parameter (top level, or in its group), each group's own members,
// the conditions (their order is their priority: one unit), and every other member. Undo steps,
// the kept steps and the comparisons with the base and the proposal work unit by unit, so a step
// holds what it changed, not the whole template.
const unitSeparator = "\n";

function unitsOf(template) {
  const units = new Map();
  for (const [member, value] of Object.entries(template)) {
    if (member === "parameters") {
      for (const [key, parameter] of Object.entries(value)) units.set(`p${unitSeparator}${key}`, JSON.stringify(parameter));
    } else if (member === "parameterGroups") {
      for (const [name, group] of Object.entries(value)) {
        const { parameters, ...rest } = group;
        units.set(`g${unitSeparator}${name}`, JSON.stringify(rest));
        for (const [key, parameter] of Object.entries(parameters ?? {})) {
          units.set(`q${unitSeparator}${name}${unitSeparator}${key}`, JSON.stringify(parameter));
        }
      }
    } else {
      units.set(`m${unitSeparator}${member}`, JSON.stringify(value));
    }
  }
  return units;
}

/** [[unit, its text in `before` or null]] for every unit that differs: what takes `after` back to `before`. */
function deltaBetween(before, after) {
  const delta = [];
  for (const [unit, text] of before) if (after.get(unit) !== text) delta.push([unit, text]);
  for (const unit of after.keys()) if (!before.has(unit)) delta.push([unit, null]);
  return delta;
}

/** Sets each unit of `delta` in the draft itself (null: removes it); untouched members keep their objects. */
function applyDelta(space, delta) {
  const draft = space.draft;
  for (const [unit, text] of delta) {
    const [kind, first, second] = unit.split(unitSeparator);
    const value = text === null ? undefined : JSON.parse(text);
    const put = (object, key) => {
      if (value === undefined) delete object[key];
      else object[key] = value;
    };
    if (kind === "p") put(draft.parameters, first);
    else if (kind === "m") put(draft, first);
    else if (kind === "g") {
      if (value === undefined) delete draft.parameterGroups[first];
      else draft.parameterGroups[first] = { ...value, parameters: draft.parameterGroups[first]?.parameters ?? {} };
    } else if (kind === "q") {
      draft.parameterGroups[first] ??= { parameters: {} };
      put(draft.parameterGroups[first].parameters, second);
    }
    if (text === null) space.units.delete(unit);
    else space.units.set(unit, text);
  }
  normalize(draft);
}

/** Whether two unit maps hold the same template (member order inside a unit aside). */
function sameUnits(one, other) {
  if (one.size !== other.size) return false;
  for (const [unit, text] of one) {
    const that = other.get(unit);
    if (that === text) continue;
    if (that === undefined || canonicalJSON(JSON.parse(that)) !== canonicalJSON(JSON.parse(text))) return false;
  }
  return true;
}

function setBase(space, base, tag) {
  space.base = base;
  space.etag = tag;
  space.baseUnits = unitsOf(normalize(content(base)));
}

function withUnits(proposal) {
  return { ...proposal, units: unitsOf(normalize(content(proposal.template))) };
}

/** Works out once per change whether the draft differs from its base and from its proposal. */
function settle(space) {
  space.dirty = !sameUnits(space.units, space.baseUnits);
  space.matchesProposal = Boolean(space.proposal) && sameUnits(space.units, space.proposal.units);
}

// MARK: change requests

/** The change request this draft was proposed as ({id, requiredApprovals, template}), or null. */
export function proposal() {
  return workspace()?.proposal ?? null;
}

/** The draft, as it is now, is what change request `request` proposes. */
export function proposed(request) {
  const space = workspace();
  space.proposal = withUnits({ id: String(request.id), requiredApprovals: request.requiredApprovals, template: content(space.draft) });
  settle(space);
  emit("proposal");
  keep();
}

/** The change request is settled (rejected, cancelled, conflicted): the draft's changes are its own again. */
export function dropProposal() {
  const space = workspace();
  if (!space?.proposal) return;
  space.proposal = null;
  settle(space);
  emit("proposal");
  keep();
}

// MARK: undo and redo

function pushStep(space, entry, typing) {
  space.undo.push(entry);
  if (space.undo.length > maxSteps) space.undo.shift();
  space.last = { label: entry.label, typing, time: Date.now() };
  space.redo = [];
}

/** Makes the change since the last step an undo step (or part of the typing step before it). */
function record(label, typing) {
  const space = workspace();
  if (!space) return;
  const units = unitsOf(space.draft);
  const delta = deltaBetween(space.units, units);
  space.units = units;
  if (delta.length === 0) return;
  const time = Date.now();
  const top = space.undo.at(-1);
  const joins = typing && top && space.last?.typing && space.last.label === label && time - space.last.time < typingPause;
  if (joins) {
    // The step keeps each unit as it was before the typing began.
    const known = new Set(top.delta.map(([unit]) => unit));
    for (const change of delta) if (!known.has(change[0])) top.delta.push(change);
    space.last.time = time;
    space.redo = [];
  } else {
    pushStep(space, { label, delta }, typing);
  }
  settle(space);
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
  const inverse = taken.delta.map(([unit]) => [unit, space.units.get(unit) ?? null]);
  applyDelta(space, taken.delta);
  space[to].push({ label: taken.label, delta: inverse });
  space.last = null;
  settle(space);
  emit("structure");
  events.dispatchEvent(new CustomEvent("stepped", { detail: { units: taken.delta.map(([unit, text]) => ({ unit, removed: text === null })) } }));
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

/**
 * The parameter a unit names ({key, group}), or null for a unit that is not a parameter (for
 * putting focus on what an undo brought back).
 */
export function parameterOfUnit(unit) {
  const [kind, first, second] = unit.split(unitSeparator);
  if (kind === "p") return { key: first, group: null };
  if (kind === "q") return { key: second, group: first };
  return null;
}

/** Keeps the draft in the browser while it differs from its base, and forgets it when not. */
function keep(space = workspace(), project = state.project, namespace = state.namespace) {
  if (!space || space.kept) return;
  // Decided when written: a draft kept from an earlier visit, not yet answered, is left alone.
  drafts.schedule(project, namespace, () => {
    if (space.kept) return undefined;
    if (!space.dirty) return null;
    const proposal = space.proposal ? { id: space.proposal.id, requiredApprovals: space.proposal.requiredApprovals, template: space.proposal.template } : undefined;
    return { base: space.base, etag: space.etag, draft: space.draft, undo: space.undo, redo: space.redo, proposal };
  });
}

/** Writes every draft to the browser now (the sign-in ended, or signing out keeps them). */
export function keepAll() {
  for (const [key, space] of state.workspaces) {
    const [project, namespace] = key.split("\n");
    keep(space, project, namespace);
  }
  drafts.flush();
}

/** Forgets what this page holds (signing out, or the sign-in ended); drafts kept in the browser stay. */
export function clear() {
  events = new EventTarget();
  state.projects = [];
  state.project = "";
  state.me = null;
  state.policy = null;
  state.environments = [];
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
