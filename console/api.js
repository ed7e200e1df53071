// Every call to the server goes through here: it adds the credentials and turns Google's
// error bodies ({"error": {"code", "message", "status"}}) into ApiError.
//
// Two ways to be signed in. A pasted admin token lives only in this module's memory: never in a
// URL, a cookie or Web Storage, so it is gone when the tab is closed or reloaded, and the
// browser never sends it on its own. A session started through the identity provider lives in
// an HttpOnly cookie the page cannot read; every call that changes something then carries the
// session's CSRF token, which a page of another site can neither read nor guess.
let token = null;
let csrfToken = null;
let onEnded = () => {};

/** A refused or failed call, with the server's message and, for templates, its issues. */
export class ApiError extends Error {
  constructor(status, message, canonicalStatus, details) {
    super(message);
    this.status = status;
    this.canonicalStatus = canonicalStatus || "";
    this.issues = structuredIssues(details);
  }

  /** True when the template changed on the server since the ETag that was sent. */
  get isVersionMismatch() {
    return this.message.includes("[VERSION_MISMATCH]");
  }
}

export function setToken(value) {
  token = value;
}

/** Signed in through the identity provider: calls send the session cookie and this token. */
export function setSession(csrf) {
  csrfToken = csrf;
}

export function forgetToken() {
  token = null;
  csrfToken = null;
}

/** Whether the console is signed in with a session cookie (rather than a pasted token). */
export function hasSession() {
  return csrfToken !== null;
}

/**
 * `handler(message)` runs once when a call finds the sign-in gone: the session ended (signed out
 * elsewhere, timed out, or ended by an owner: 401) or the token revoked (403 "not a valid admin
 * token"). The credentials are forgotten first, so nothing else is sent with them.
 */
export function whenSignInEnds(handler) {
  onEnded = handler;
}

/**
 * Calls the API. Returns {status, body, etag}; throws ApiError for any non-2xx answer.
 * `body` is the parsed JSON answer (or the text when it is not JSON).
 */
export async function call(method, path, { body, headers = {} } = {}) {
  const init = { method, headers: { ...headers }, cache: "no-store", credentials: token ? "omit" : "same-origin" };
  if (token) init.headers.Authorization = `Bearer ${token}`;
  else if (csrfToken) init.headers["X-CSRF-Token"] = csrfToken;
  // What the server's audit log records as where a change came from.
  init.headers["X-RCS-Origin"] = "CONSOLE";
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = typeof body === "string" ? body : JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch {
    throw new ApiError(0, "The server could not be reached.", "UNAVAILABLE");
  }
  const text = await response.text();
  let parsed = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    // Not JSON (e.g. a proxy's error page): keep the text.
  }
  if (!response.ok) {
    const error = parsed && typeof parsed === "object" ? parsed.error : null;
    const message = error && error.message ? error.message : `The server answered ${response.status}.`;
    const signedIn = token !== null || csrfToken !== null;
    const ended = (csrfToken !== null && response.status === 401)
      || (token !== null && response.status === 403 && message.includes("not a valid admin token"));
    if (signedIn && ended && !path.startsWith("/auth/")) {
      forgetToken();
      onEnded(message);
    }
    throw new ApiError(response.status, message, error && error.status, error?.details);
  }
  return { status: response.status, body: parsed, etag: response.headers.get("ETag") };
}

/**
 * A template as the page names it: its kind (`firebase`, `firebase-server`) in production, or
 * `<environment>/<kind>` in another environment, as the server stores it (docs/environments.md).
 */
export function kindOf(namespace) {
  return namespace.includes("/") ? namespace.slice(namespace.indexOf("/") + 1) : namespace;
}

export function environmentOf(namespace) {
  return namespace.includes("/") ? namespace.slice(0, namespace.indexOf("/")) : "production";
}

export function namespaceIn(environment, kind) {
  return environment === "production" ? kind : `${environment}/${kind}`;
}

/** Where the API names a template: `/v1/projects/{p}[/environments/{e}]/namespaces/{kind}`. */
export function scopePath(project, namespace) {
  const environment = environmentOf(namespace);
  const inEnvironment = environment === "production" ? "" : `/environments/${encodeURIComponent(environment)}`;
  return `/v1/projects/${encodeURIComponent(project)}${inEnvironment}/namespaces/${encodeURIComponent(kindOf(namespace))}`;
}

/** The path of a template resource: `…/namespaces/{ns}/remoteConfig[:method]`. */
export function templatePath(project, namespace, method = "") {
  const base = `${scopePath(project, namespace)}/remoteConfig`;
  return method ? `${base}:${method}` : base;
}

/**
 * [{path, message}] from the field violations of Google's BadRequest in the error's details
 * (every problem of an invalid template and the path it names); [] for other errors.
 */
function structuredIssues(details) {
  if (!Array.isArray(details)) return [];
  const issues = details.flatMap((detail) => detail?.fieldViolations ?? [])
    .filter((violation) => violation.description)
    .map((violation) => ({ path: violation.field ?? "", message: violation.description }));
  return issues;
}
