// Keeps each template's unpublished draft in the browser's localStorage, per person, project and
// namespace, so a reload, a closed tab, a mistyped address, signing out or a session that ended
// does not lose it; the page offers it back when the same person signs in again. Kept: the
// template JSON, the version it was based on, its undo and redo steps, and the change request it
// was proposed as; never the token, the session or anything the server sent about the person.

const prefix = "rcs-console-draft\n";
/** Writes wait for a pause in typing: one write per burst, not one per keystroke. */
const writeDelay = 400;
const pending = new Map();
let timer = null;
/** Whose drafts are read and written: the id of the person signed in ("" before it is known). */
let owner = "";

/** Drafts are read and written for `id` (the signed-in person's) from now on. */
export function setOwner(id) {
  flush();
  owner = id ?? "";
}

function storageKey(project, namespace) {
  return `${prefix}${owner}\n${project}\n${namespace}`;
}

/** {savedAt, base, etag, draft, undo, redo, proposal} kept for this template, or null. */
export function read(project, namespace) {
  try {
    const record = JSON.parse(localStorage.getItem(storageKey(project, namespace)) ?? "null");
    return record && record.draft && record.base ? record : null;
  } catch {
    return null;
  }
}

export function forget(project, namespace) {
  pending.delete(storageKey(project, namespace));
  localStorage.removeItem(storageKey(project, namespace));
}

/** The drafts kept for the person signed in: [{project, namespace, record}]. */
export function keptByOwner() {
  flush();
  const mine = `${prefix}${owner}\n`;
  const kept = [];
  for (const key of Object.keys(localStorage)) {
    if (!key.startsWith(mine)) continue;
    const [project, namespace] = key.slice(mine.length).split("\n");
    const record = read(project, namespace);
    if (record) kept.push({ project, namespace, record });
  }
  return kept;
}

/** Forgets every draft kept for the person signed in (signing out, asked to discard them). */
export function forgetOwner() {
  flush();
  const mine = `${prefix}${owner}\n`;
  for (const key of Object.keys(localStorage)) if (key.startsWith(mine)) localStorage.removeItem(key);
}

/**
 * Writes this template's draft soon. `record()` is asked at write time: an object to keep,
 * null to forget the kept one, undefined to leave storage as it is.
 */
export function schedule(project, namespace, record) {
  pending.set(storageKey(project, namespace), record);
  if (timer === null) timer = setTimeout(flush, writeDelay);
}

/** Writes what waits now (also as the page is left, or the sign-in ends). */
export function flush() {
  clearTimeout(timer);
  timer = null;
  for (const [key, record] of pending) {
    const value = record();
    if (value === null) localStorage.removeItem(key);
    else if (value !== undefined) {
      try {
        localStorage.setItem(key, JSON.stringify({ savedAt: new Date().toISOString(), ...value }));
      } catch {
        // Storage full or refused (private mode): the leave-page prompt still guards the draft.
      }
    }
  }
  pending.clear();
}

/** Asks before the page is left with unpublished changes, and writes what waits. */
export function guardUnload(isDirty) {
  window.addEventListener("beforeunload", (event) => {
    flush();
    if (!isDirty()) return;
    event.preventDefault();
    // Older browsers show the prompt only when returnValue is set.
    event.returnValue = "";
  });
  window.addEventListener("pagehide", flush);
}
