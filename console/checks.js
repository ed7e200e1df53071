// The rules a template obeys live once, in the server; the console asks it. What a draft
// changes is the server's diff (`POST …:diff`); whether a value or a rule is valid is the
// server's check of a template holding only that value or rule (`POST …:check`), shown beside
// the field as it is typed. Neither stores nor audits anything.
import { call, templatePath } from "./api.js";
import * as session from "./session.js";

function path(method = "") {
  const { project, namespace } = session.scope();
  return templatePath(project, namespace, method);
}

/** The version number a template names, or 0 for none. */
export function versionOf(template) {
  return Number(template?.version?.versionNumber ?? 0);
}

/** The server's diff of `template` against version `from` (0: against nothing). */
export async function diffFrom(from, template) {
  const { body } = await call("POST", `${path("diff")}?from=${from}`, { body: template });
  return body.diff;
}

/** The server's diff between two stored versions. */
export async function diffBetween(from, to) {
  const { body } = await call("GET", `${path("diff")}?from=${from}&to=${to}`);
  return body.diff;
}

/** The server's problems with `template`, [{path, message}]; [] when it would publish. */
export async function problems(template) {
  const { body } = await call("POST", path("check"), { body: template });
  return body.issues;
}

/**
 * A check to run on each keystroke: after a pause it asks the server about `fragment()` (a
 * template holding only what the field sets; nothing to check when it returns null) and calls
 * `show` with the problems' messages, or "" — only for the latest keystroke's answer. When the
 * server cannot be asked, nothing is shown: Validate and Publish will say.
 */
export function checkAsTyped(fragment, show, pause = 120) {
  let timer = null;
  let latest = 0;
  return () => {
    clearTimeout(timer);
    const asked = ++latest;
    timer = setTimeout(async () => {
      const template = fragment();
      if (!template) return show("");
      try {
        const found = await problems(template);
        if (asked === latest) show(found.map((issue) => issue.message).join("; "));
      } catch {
        if (asked === latest) show("");
      }
    }, pause);
  };
}
