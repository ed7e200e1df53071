"""What every step of the console's browser test uses (scripts/console_e2e.py): the page and
what it reported, the server's address and API, and the helpers steps share."""
import http.server
import json
import pathlib
import re
import threading
import urllib.error
import urllib.parse
import urllib.request

from playwright.sync_api import expect


HOSTILE = "<img src=x onerror=alert(1)>"


REFUSED = {
    401: r"Failed to load resource: the server responded with a status of 401",
    403: r"Failed to load resource: the server responded with a status of 403",
    400: r"Failed to load resource: the server responded with a status of 400",
}


class Run:
    """The browser page, the server's address, and what the page reported."""

    def __init__(self, args, page, provider=None):
        self.args = args
        self.page = page
        self.provider = provider
        self.problems = []
        page.on("pageerror", lambda error: self.problems.append(f"page error: {error}"))
        page.on("console", self.console)
        page.on("dialog", self.dialog)
        self.allowed = []
        self.expected_dialogs = []
        self.seen_dialogs = []

    def console(self, message):
        if message.type == "error":
            self.problems.append(f"console error: {message.text}")
        elif message.type == "warning":
            print(f"     console warning: {message.text}", flush=True)

    def dialog(self, dialog):
        if dialog.type in self.expected_dialogs:
            self.seen_dialogs.append(dialog.type)
            dialog.accept()
            return
        self.problems.append(f"dialog ({dialog.type}): {dialog.message}")
        dialog.dismiss()

    def check_reports(self):
        unexpected = [p for p in self.problems if not any(re.search(pattern, p) for pattern in self.allowed)]
        self.problems = []
        self.allowed = []
        if unexpected:
            raise AssertionError("the page reported: " + "; ".join(unexpected))

    def api(self, method, path, body=None, headers=None):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.args.base + path, data=data, method=method)
        request.add_header("Authorization", f"Bearer {self.args.token}")
        for name, value in (headers or {}).items():
            request.add_header(name, value)
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return response.status, json.loads(response.read() or b"null")
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"null")

    def template_path(self, method=""):
        path = f"/v1/projects/{self.args.project}/namespaces/firebase/remoteConfig"
        return f"{path}:{method}" if method else path

    def view(self, name):
        self.page.get_by_role("navigation", name="Views").get_by_role("button", name=name, exact=True).click()

    def shot(self, name):
        self.page.screenshot(path=str(pathlib.Path(self.args.screenshots) / f"{name}.png"), full_page=True)

    def latency(self, event, ready, action):
        """Milliseconds from the `event` that `action` causes (its timeStamp, when the browser took the
        input) to the end of the first frame painted once the JavaScript expression `ready` holds: what
        a person waits, style, layout and paint included. Each frame asks `ready` in a
        requestAnimationFrame callback; the frame is painted before the message posted there arrives."""
        # The page's policy forbids eval: the check is written into the script the test evaluates.
        self.page.evaluate("""(type) => {
          const ready = () => (%s);
          window.__latency = new Promise((resolve) => {
            window.addEventListener(type, (event) => {
              const start = event.timeStamp;
              const frame = () => {
                if (!ready()) return requestAnimationFrame(frame);
                const channel = new MessageChannel();
                channel.port1.onmessage = () => resolve(performance.now() - start);
                channel.port2.postMessage(0);
              };
              requestAnimationFrame(frame);
            }, { capture: true, once: true });
          });
        }""" % ready, event)
        action()
        return self.page.evaluate("window.__latency")


def card(run, key):
    return run.page.locator(f'details.card[data-key="{key}"]')


def diff_item(scope, kind, name):
    """The item of a rendered diff that names `name` as added, removed or changed."""
    return scope.locator(f"li.{kind}").filter(has=scope.page.locator("code", has_text=re.compile(f"^{re.escape(name)}$")))


def add_parameter(run, key):
    """Adds a parameter from the Parameters view and returns its card."""
    run.page.get_by_label("New parameter key").fill(key)
    run.page.get_by_role("button", name="Add parameter").click()
    return card(run, key)


# The first version, published through the API: a hostile value, a rollout value the console
# must keep untouched, a condition and a group.
FIRST_TEMPLATE = {
    "conditions": [{"name": "android_users", "expression": "device.os == 'android'", "tagColor": "GREEN"}],
    "parameters": {
        "hostile": {"defaultValue": {"value": HOSTILE}, "description": "<script>alert(2)</script>"},
        "rollout_flag": {
            "defaultValue": {"value": "false"}, "valueType": "BOOLEAN",
            "conditionalValues": {"android_users": {"rolloutValue": {"rolloutId": "rollout_1", "value": "true", "percent": 50}}},
        },
    },
    "parameterGroups": {"onboarding": {"description": "First run", "parameters": {
        "welcome_text": {"defaultValue": {"value": "Welcome"}, "valueType": "STRING"}}}},
    "version": {"description": "seeded through the API"},
}


def review_and_publish(run, description, version):
    """Opens the review, checks it lists changes, describes the version and publishes it."""
    page = run.page
    page.get_by_role("button", name="Review and publish…").click()
    review = page.locator(".review")
    expect(review.locator("h3")).to_have_text(f"Review version {version} before publishing")
    page.get_by_label("Description of this version").fill(description)
    review.get_by_role("button", name=f"Publish version {version}").click()
    expect(page.locator(".draft-bar .result")).to_have_text(f"Published version {version}.")
    expect(page.get_by_role("button", name="Review and publish…")).to_be_disabled()


def sign_in_again(run):
    page = run.page
    page.get_by_label("Admin token").fill(run.args.token)
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("heading", name="Parameters")).to_be_visible()


def sign_in_with_provider(run, page, email, name):
    """Signs `page` in through the test's identity provider as `email`."""
    run.provider.person = {"email": email, "name": name}
    page.get_by_role("link", name="Sign in with Test provider").click()
    expect(page.locator("#who")).to_have_text(f"Signed in as {name}")


def sign_out_of_token(run):
    page = run.page
    page.get_by_role("button", name="Sign out").click()
    expect(page.get_by_label("Admin token")).to_be_visible()


def leave_prompt_would_fire(page):
    """Whether leaving the page now would ask first (the beforeunload guard cancels the event)."""
    return page.evaluate("(() => { const event = new Event('beforeunload', { cancelable: true }); "
                         "window.dispatchEvent(event); return event.defaultPrevented; })()")


class Receiver:
    """A loopback webhook receiver that keeps what it is sent."""

    def __init__(self):
        received = self.received = []

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                received.append((dict(self.headers), self.rfile.read(int(self.headers.get("Content-Length", "0")))))
                self.send_response(200)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


def serve_console_from(args, context):
    """With --console-dir, answers /console/ files from that folder, with the headers the server sends."""
    if not args.console_dir:
        return
    folder = pathlib.Path(args.console_dir)
    types = {".js": "text/javascript", ".css": "text/css", ".html": "text/html", ".svg": "image/svg+xml"}

    def serve(route):
        name = urllib.parse.urlparse(route.request.url).path.removeprefix("/console/") or "index.html"
        file = folder / name
        if "/" in name or not file.is_file():
            return route.continue_()
        response = route.fetch()
        headers = {key: value for key, value in response.headers.items() if key.lower() != "content-length"}
        headers["content-type"] = types.get(file.suffix, "application/octet-stream")
        return route.fulfill(status=200, headers=headers, body=file.read_bytes())

    context.route(re.compile(r"^https?://[^/]+/console/[^?#]*$"), serve)


VIEWS = ("Parameters", "Conditions", "Groups", "History", "Changes", "Evaluate", "Live", "Insights", "Environments", "Access", "Webhooks")


def show_an_evaluation_and_deliveries(run):
    """Puts data in the Evaluate view's table and the Webhooks view's deliveries (the endpoint at
    http://127.0.0.1:9/hook must exist), for the views' checks that follow."""
    page = run.page
    run.view("Evaluate")
    page.get_by_label("App ID").fill(f"1:{run.args.project_number}:ios:0a1b2c3d")
    page.get_by_role("button", name="Evaluate for this client").click()
    expect(page.locator(".evaluation table.openfeature")).to_be_visible()
    run.view("Webhooks")
    page.get_by_role("button", name="Deliveries to http://127.0.0.1:9/hook").click()
    expect(page.locator("table.deliveries")).to_be_visible()


def accessibility(run, views=VIEWS, where="laptop"):
    """axe-core on each view: no serious or critical finding; and every button's accessible name
    holds the words it shows (WCAG 2.5.3), so a voice command naming it reaches it."""
    from axe_playwright_python.sync_playwright import Axe
    axe = Axe()
    found = []
    for name in views:
        run.view(name)
        run.page.wait_for_timeout(300)
        results = axe.run(run.page)
        for violation in results.response["violations"]:
            if violation["impact"] in ("serious", "critical"):
                nodes = len(violation["nodes"])
                found.append(f"{name}: {violation['id']} ({violation['impact']}, {nodes} nodes): {violation['help']}")
        mismatched = run.page.evaluate("""() => [...document.querySelectorAll('button[aria-label]')]
          .filter((node) => node.checkVisibility())
          .map((node) => [node.textContent.replace(/…/g, '').trim().toLowerCase(), node.getAttribute('aria-label').toLowerCase()])
          .filter(([shown, name]) => shown && !name.includes(shown))
          .map(([shown, name]) => `"${shown}" named "${name}"`)""")
        found += [f"{name}: {mismatch}" for mismatch in mismatched]
    assert not found, "axe: " + "; ".join(found)
    print(f"     axe-core ({where}): no serious or critical findings on {', '.join(views)}", flush=True)
