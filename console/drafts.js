// Keeps each template's unpublished draft in the browser's localStorage, per project and
// namespace, so a reload, a closed tab or a mistyped address does not lose it; the page offers
// it back on return. Only the template JSON and the version it was based on are kept: never the
// token, the session or anything the server sent about the person signed in.

const prefix = "rcs-console-draft\n";
/** Writes wait for a pause in typing: one write per burst, not one per keystroke. */
const writeDelay = 400;
const pending = new Map();
let timer = null;

function storageKey(project, namespace) {
  return `${prefix}${project}\n${namespace}`;
}

/** {savedAt, base, etag, draft} kept for this template, or null. */
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

/** Forgets every kept draft (signing out: the next person at this browser sees none). */
export function forgetAll() {
  pending.clear();
  for (const key of Object.keys(localStorage)) if (key.startsWith(prefix)) localStorage.removeItem(key);
}

/**
 * Writes this template's draft soon. `record()` is asked at write time: an object to keep,
 * null to forget the kept one, undefined to leave storage as it is.
 */
export function schedule(project, namespace, record) {
  pending.set(storageKey(project, namespace), record);
  if (timer === null) timer = setTimeout(flush, writeDelay);
}

/** Writes what waits now (also as the page is left). */
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
