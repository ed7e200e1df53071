#!/usr/bin/env python3
"""The web console, end to end in headless Chromium (Debian's, driven by Playwright).

Run by scripts/console-e2e, which builds and starts the server. Every step fails on a page
error, a console error (CSP violations land there) or a JavaScript dialog; a step that makes
the server refuse a call on purpose names the one console line that refusal causes. Writes
screenshots of the main views (laptop and phone widths) to --screenshots.
"""
import argparse
import http.server
import json
import pathlib
import re
import socket
import sys
import tempfile
import threading
import time
import traceback
import urllib.error
import urllib.request

from playwright.sync_api import expect, sync_playwright

HOSTILE = "<img src=x onerror=alert(1)>"
REFUSED = {
    401: r"Failed to load resource: the server responded with a status of 401",
    403: r"Failed to load resource: the server responded with a status of 403",
    400: r"Failed to load resource: the server responded with a status of 400",
}


class Run:
    """The browser page, the server's address, and what the page reported."""

    def __init__(self, args, page):
        self.args = args
        self.page = page
        self.problems = []
        page.on("pageerror", lambda error: self.problems.append(f"page error: {error}"))
        page.on("console", self.console)
        page.on("dialog", self.dialog)
        self.allowed = []

    def console(self, message):
        if message.type == "error":
            self.problems.append(f"console error: {message.text}")
        elif message.type == "warning":
            print(f"     console warning: {message.text}", flush=True)

    def dialog(self, dialog):
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


def card(run, key):
    return run.page.locator(f'details.card[data-key="{key}"]')


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


def wrong_token_is_refused(run):
    run.allowed = [REFUSED[403]]
    page = run.page
    page.get_by_label("Admin token").fill("not-the-token")
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("alert")).to_contain_text("This token was refused")
    expect(page.locator("#workspace")).to_be_hidden()
    run.shot("sign-in-refused")


def sign_in(run):
    page = run.page
    # By the keyboard alone: the token field has the focus, Enter submits.
    token = page.get_by_label("Admin token")
    token.fill("")
    expect(token).to_be_focused()
    page.keyboard.type(run.args.token)
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", name="Parameters")).to_be_visible()
    expect(page.get_by_role("heading", name="Parameters")).to_be_focused()
    expect(page.locator(".draft-status")).to_contain_text("Editing version 1")
    assert page.evaluate("sessionStorage.length + localStorage.length") == 0, "the token went into Web Storage"
    assert page.evaluate("document.cookie") == "", "a cookie was set"
    assert run.args.token not in page.url


def hostile_value_renders_inert(run):
    page = run.page
    hostile = card(run, "hostile")
    expect(hostile.locator("summary .preview")).to_have_text(HOSTILE)
    hostile.locator("summary").click()
    expect(hostile.get_by_label("Value", exact=True)).to_have_value(HOSTILE)
    expect(hostile.get_by_label("Description")).to_have_value("<script>alert(2)</script>")
    assert page.locator("img[src='x']").count() == 0, "the value became an element"
    page.wait_for_timeout(300)  # an onerror handler would have fired by now; the dialog listener records it
    hostile.locator("summary").click()


def rollout_value_is_shown_as_kept(run):
    rollout = card(run, "rollout_flag")
    rollout.locator("summary").click()
    kept = rollout.locator('[data-role="conditional-android_users"]')
    expect(kept.get_by_label("Kind of value")).to_have_value("rolloutValue")
    expect(kept.locator("pre.json")).to_contain_text('"rolloutId": "rollout_1"')
    rollout.locator("summary").click()


def create_parameter_with_conditional_value(run):
    page = run.page
    run.view("Conditions")
    form = page.locator("#view-conditions form")
    form.get_by_label("New condition name").fill("ios_users")
    form.get_by_label("Rule").fill("device.os == 'ios'")
    form.get_by_label("Colour").select_option("BLUE")
    form.get_by_role("button", name="Add condition").click()
    expect(page.locator("li.condition")).to_have_count(2)
    # Priority by the keyboard-reachable buttons: ios_users first.
    page.get_by_role("button", name="Move ios_users up").focus()
    page.keyboard.press("Enter")
    expect(page.locator("li.condition").first.get_by_label("Name")).to_have_value("ios_users")
    run.shot("conditions")
    run.view("Parameters")
    page.get_by_label("New parameter key").fill("greeting")
    page.get_by_role("button", name="Add parameter").click()
    greeting = card(run, "greeting")
    greeting.get_by_label("Value", exact=True).fill("hello")
    greeting.get_by_label("Description").fill("Shown on the home screen")
    greeting.get_by_label("Condition", exact=True).select_option("ios_users")
    greeting.get_by_role("button", name="Add conditional value").click()
    greeting.locator('[data-role="conditional-ios_users"]').get_by_label("Value", exact=True).fill("hi iPhone")
    expect(page.locator(".draft-status")).to_contain_text("Unpublished changes")
    run.shot("parameters")


def json_errors_show_in_place(run):
    page = run.page
    page.get_by_label("New parameter key").fill("layout")
    page.get_by_role("button", name="Add parameter").click()
    layout = card(run, "layout")
    layout.get_by_label("Type").select_option("JSON")
    area = layout.get_by_label("Value (JSON)")
    area.fill('{"columns": 2,')
    expect(layout.get_by_role("alert")).to_contain_text("Not valid JSON")
    area.fill('{"columns": 2}')
    expect(layout.get_by_role("alert")).to_be_hidden()
    # A NUMBER that is not a number: the server's message appears beside the field it names.
    run.allowed = [REFUSED[400]]
    layout.get_by_label("Type").select_option("NUMBER")
    layout.get_by_label("Value", exact=True).fill("two")
    page.get_by_role("button", name="Validate").click()
    expect(layout.locator(".issue:not([hidden])")).to_contain_text("is not a NUMBER value")
    expect(page.locator(".draft-bar .result")).to_contain_text("refused")
    run.shot("validation-error")
    layout.get_by_role("button", name="Delete parameter layout").click()
    expect(card(run, "layout")).to_have_count(0)


def publish(run):
    page = run.page
    page.get_by_label("Description of this version").fill("greeting for iOS")
    page.get_by_role("button", name="Publish", exact=True).click()
    expect(page.locator(".draft-bar .result")).to_have_text("Published version 2.")
    status, template = run.api("GET", run.template_path())
    assert status == 200
    greeting = template["parameters"]["greeting"]
    assert greeting["conditionalValues"] == {"ios_users": {"value": "hi iPhone"}}, greeting
    assert [c["name"] for c in template["conditions"]] == ["ios_users", "android_users"]
    assert template["version"]["description"] == "greeting for iOS"
    # What the console does not edit went back untouched.
    first = FIRST_TEMPLATE["parameters"]
    assert template["parameters"]["rollout_flag"] == first["rollout_flag"], template["parameters"]["rollout_flag"]
    assert template["parameters"]["hostile"] == dict(first["hostile"], valueType="STRING")
    assert template["parameterGroups"] == FIRST_TEMPLATE["parameterGroups"]


def history_shows_version_2(run):
    page = run.page
    run.view("History")
    row = page.locator("table.versions tbody tr").first
    expect(row.locator("th")).to_have_text("2")
    expect(row).to_contain_text("greeting for iOS")
    # Published through the console: the version says so, as Firebase's console versions do.
    expect(row).to_contain_text("CONSOLE")


def diff_1_to_2(run):
    page = run.page
    compare = page.locator("#view-history form")
    compare.get_by_label("From").select_option("1")
    compare.get_by_label("To").select_option("2")
    compare.get_by_role("button", name="Show differences").click()
    output = page.locator(".history-output")
    expect(output.locator("h3")).to_have_text("Changes from version 1 to version 2")
    expect(output.locator("li.added").filter(has_text="greeting")).to_have_count(1)
    expect(output.locator("li.added").filter(has_text="ios_users")).to_have_count(1)
    run.shot("history")


def evaluate_for_ios(run):
    page = run.page
    run.view("Evaluate")
    page.get_by_label("App ID").fill(f"1:{run.args.project_number}:ios:0a1b2c3d")
    page.get_by_label("App version").fill("2.0.0")
    page.get_by_label("User properties").fill("plan=pro")
    page.get_by_role("button", name="Evaluate for this client").click()
    row = page.locator('.evaluation tr[data-key="greeting"]')
    expect(row).to_contain_text("hi iPhone")
    expect(row).to_contain_text("condition ios_users")
    expect(page.locator('.evaluation tr[data-key="hostile"]')).to_contain_text(HOSTILE)
    run.shot("evaluate")


def adoption_shows_held_stream(run):
    page = run.page
    stream = socket.create_connection(("127.0.0.1", run.args.port), timeout=10)
    try:
        body = json.dumps({"lastKnownVersionNumber": "2"}).encode()
        stream.sendall((f"POST /v1/projects/{run.args.project_number}/namespaces/firebase:streamFetchInvalidations HTTP/1.1\r\n"
                        f"Host: 127.0.0.1\r\nX-Goog-Api-Key: {run.args.api_key}\r\nContent-Type: application/json\r\n"
                        f"Content-Length: {len(body)}\r\n\r\n").encode() + body)
        assert stream.recv(12).startswith(b"HTTP/1.1 200"), "the stream was not accepted"
        run.view("Live")
        row = page.locator('table.adoption tr[data-version="2"]')
        expect(row.locator("td").first).to_have_text("1", timeout=15000)
        expect(page.locator(".live-summary")).to_contain_text("Version 2 is current: 1 of 1 held streams")
        line = page.locator("svg.chart polyline")
        expect(line).to_have_count(1)
        # Later polls add samples: three points make a line over time in the screenshot.
        expect(line).to_have_attribute("points", re.compile(r"^\S+ \S+ \S+"), timeout=15000)
        expect(page.locator("svg.chart text.label")).to_have_text("v2: 1")
        run.shot("live")
    finally:
        stream.close()


def roll_back_to_version_1(run):
    page = run.page
    run.view("History")
    page.locator("table.versions").get_by_role("button", name="Roll back to version 1").click()
    confirm = page.get_by_role("group", name="Confirm rollback")
    expect(confirm).to_contain_text("Roll back to version 1?")
    confirm.get_by_role("button", name="Roll back to version 1").click()
    expect(page.locator("#view-history .result").first).to_contain_text("version 3 has the template of version 1")
    row = page.locator("table.versions tbody tr").first
    expect(row.locator("th")).to_have_text("3")
    expect(row).to_contain_text("ROLLBACK")
    status, template = run.api("GET", run.template_path())
    assert status == 200 and "greeting" not in template["parameters"]


def export_and_import(run):
    page = run.page
    run.view("Parameters")
    with page.expect_download() as download:
        page.get_by_role("button", name="Export the template as a JSON file").click()
    exported = json.loads(pathlib.Path(download.value.path()).read_text())
    assert "hostile" in exported["parameters"] and "version" not in exported, exported
    imported = dict(exported)
    imported["parameters"] = dict(exported["parameters"], from_file={"defaultValue": {"value": "imported"}})
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
        json.dump(imported, handle)
    page.locator('#draft-bar input[type="file"]').set_input_files(handle.name)
    expect(page.locator(".draft-bar .result")).to_contain_text("Imported")
    expect(card(run, "from_file")).to_have_count(1)
    page.get_by_role("button", name="Discard changes").click()
    expect(card(run, "from_file")).to_have_count(0)


def publish_conflict_is_reported(run):
    page = run.page
    page.get_by_label("New parameter key").fill("late_change")
    page.get_by_role("button", name="Add parameter").click()
    status, current = run.api("GET", run.template_path())
    current["parameters"]["from_api"] = {"defaultValue": {"value": "published elsewhere"}}
    current["version"] = {"description": "from the API"}
    status, _ = run.api("PUT", run.template_path(), current, {"If-Match": "*"})
    assert status == 200
    run.allowed = [REFUSED[400]]
    page.get_by_role("button", name="Publish", exact=True).click()
    panel = page.locator(".conflict")
    expect(panel.locator("h3")).to_have_text("Someone else published first")
    expect(panel).to_contain_text("Version 4 was published by")
    expect(panel.locator("li.added").filter(has_text="late_change")).to_have_count(1)
    expect(panel.locator("li.removed").filter(has_text="from_api")).to_have_count(1)
    run.shot("publish-conflict")
    panel.get_by_role("button", name="Publish anyway").click()
    expect(page.locator(".draft-bar .result")).to_have_text("Published version 5.")
    status, template = run.api("GET", run.template_path())
    assert "late_change" in template["parameters"] and "from_api" not in template["parameters"]


def server_template_keeps_its_own_draft(run):
    page = run.page
    page.get_by_label("New parameter key").fill("client_only_draft")
    page.get_by_role("button", name="Add parameter").click()
    page.get_by_label("Template", exact=True).select_option("firebase-server")
    expect(page.locator(".draft-status")).to_contain_text("No version published yet")
    page.get_by_label("New parameter key").fill("server_timeout")
    page.get_by_role("button", name="Add parameter").click()
    card(run, "server_timeout").get_by_label("Value", exact=True).fill("30")
    page.get_by_role("button", name="Publish", exact=True).click()
    expect(page.locator(".draft-bar .result")).to_have_text("Published version 1.")
    status, server = run.api("GET", f"/v1/projects/{run.args.project}/namespaces/firebase-server/remoteConfig")
    assert status == 200 and server["parameters"]["server_timeout"]["defaultValue"] == {"value": "30"}, server
    page.get_by_label("Template", exact=True).select_option("firebase")
    expect(card(run, "client_only_draft")).to_have_count(1)
    page.get_by_role("button", name="Discard changes").click()


def a_change_is_proposed_approved_and_applied(run):
    page = run.page
    policy = f"/v1/projects/{run.args.project}/namespaces/firebase/changePolicy"
    status, _ = run.api("PUT", policy, {"requiredApprovals": 1, "allowSelfApproval": True})
    assert status == 200
    run.view("Changes")
    view = page.locator("#view-changes")
    expect(view.get_by_text("Publishing this template needs 1 approval")).to_be_visible()
    run.view("Parameters")
    expect(page.get_by_role("button", name="Publish", exact=True)).to_be_disabled()
    page.get_by_label("New parameter key").fill("reviewed_flag")
    page.get_by_role("button", name="Add parameter").click()
    page.get_by_label("Description of this version").fill("reviewed")
    page.get_by_role("button", name="Propose for review").click()
    expect(page.locator(".draft-bar .result")).to_contain_text("Proposed change request #1")
    run.view("Changes")
    view.get_by_role("button", name="Open change request 1").click()
    expect(view.locator(".change-detail")).to_contain_text("reviewed_flag")
    view.get_by_label("Comment").fill("looks right")
    view.get_by_role("button", name="Approve").click()
    expect(view.get_by_role("status")).to_have_text("Change request #1 is approved.")
    view.get_by_role("button", name="Apply change request 1").click()
    expect(view.get_by_role("status")).to_contain_text("Applied change request #1: version")
    status, template = run.api("GET", run.template_path())
    assert "reviewed_flag" in template["parameters"], template["parameters"].keys()
    run.shot("changes")
    status, _ = run.api("PUT", policy, {"requiredApprovals": 0})
    assert status == 200
    page.get_by_label("Template", exact=True).select_option("firebase-server")
    page.get_by_label("Template", exact=True).select_option("firebase")


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


def webhooks_view_adds_tests_and_rotates(run):
    page = run.page
    receiver = Receiver()
    run.view("Webhooks")
    view = page.locator("#view-webhooks")
    view.get_by_label("Endpoint URL").fill(receiver.url)
    view.get_by_label("Description").fill("e2e receiver")
    view.get_by_label("changeRequest.applied").check()
    view.get_by_role("button", name="Add endpoint").click()
    expect(view.locator("pre.secret")).to_contain_text("whsec_")
    first_secret = view.locator("pre.secret").inner_text()
    expect(view.locator("table.webhooks")).to_contain_text("template.publish, changeRequest.applied")
    view.get_by_role("button", name=f"Send a test event to {receiver.url}").click()
    expect(view.get_by_role("status")).to_have_text("A test event is on its way.")
    deadline = time.monotonic() + 10
    while not receiver.received and time.monotonic() < deadline:
        time.sleep(0.05)
    assert receiver.received, "the receiver got nothing"
    headers, body = receiver.received[0]
    assert json.loads(body)["type"] == "test" and headers.get("webhook-signature", "").startswith("v1,"), headers
    view.get_by_role("button", name=f"Deliveries to {receiver.url}").click()
    expect(view.locator("table.deliveries")).to_contain_text("delivered")
    view.get_by_role("button", name=f"Rotate the secret of {receiver.url}").click()
    expect(view.locator("pre.secret")).not_to_have_text(first_secret)
    expect(view.locator("pre.secret")).to_contain_text("whsec_")
    run.shot("webhooks")
    view.get_by_role("button", name=f"Delete {receiver.url}").click()
    expect(view.get_by_text("No endpoints yet.")).to_be_visible()
    receiver.server.shutdown()


def access_view_manages_members_and_tokens(run):
    page = run.page
    run.view("Access")
    view = page.locator("#view-access")
    expect(view.locator(".who")).to_contain_text("owner of the server")
    view.get_by_label("Service account name").fill("E2E Bot")
    view.get_by_role("button", name="Add service account").click()
    expect(view.get_by_role("status")).to_contain_text("Added svc-e2e-bot")
    view.get_by_label("Principal").fill("svc-e2e-bot")
    view.get_by_label("Role", exact=True).select_option("publisher")
    view.get_by_role("button", name="Give role").click()
    expect(view.locator("table.access").first).to_contain_text("svc-e2e-bot")
    view.get_by_label("Token for").fill("svc-e2e-bot")
    view.get_by_label("Token name").fill("e2e")
    view.get_by_role("button", name="Make token").click()
    expect(view.locator("pre.secret")).to_contain_text("rcs_pat_")
    view.get_by_role("button", name=re.compile("^Revoke token")).click()
    expect(view.get_by_role("status")).to_contain_text("revoked")
    expect(view.locator("table.access").last).to_contain_text("member.set")
    expect(view.locator("pre.secret")).to_have_count(0)
    run.shot("access")


def sign_out_forgets_the_token(run):
    page = run.page
    page.get_by_role("button", name="Sign out").click()
    expect(page.get_by_label("Admin token")).to_have_value("")
    expect(page.locator("#workspace")).to_be_hidden()
    assert page.locator("details.card").count() == 0
    assert page.evaluate("sessionStorage.length + localStorage.length") == 0


def a_viewer_is_offered_no_publish(run):
    page = run.page
    for method, path, body in [("POST", "/v1/principals", {"displayName": "Dashboard"}),
                               ("PUT", f"/v1/projects/{run.args.project}/members/svc-dashboard", {"role": "viewer"})]:
        status, _ = run.api(method, path, body)
        assert status == 200, (method, path, status)
    status, made = run.api("POST", "/v1/tokens", {"principal": "svc-dashboard", "name": "wall"})
    assert status == 200
    page.get_by_label("Admin token").fill(made["token"])
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("heading", name="Parameters")).to_be_visible()
    expect(page.get_by_role("button", name="Publish", exact=True)).to_be_disabled()
    expect(page.get_by_role("button", name="Validate")).to_be_disabled()
    expect(page.locator("#draft-bar")).to_contain_text("You hold viewer on this project: publishing needs the publisher role")
    run.view("History")
    expect(page.get_by_role("button", name="Roll back to version 1")).to_be_disabled()
    page.get_by_role("button", name="Sign out").click()
    expect(page.get_by_label("Admin token")).to_be_visible()


STEPS = [wrong_token_is_refused, sign_in, hostile_value_renders_inert, rollout_value_is_shown_as_kept,
         create_parameter_with_conditional_value,
         json_errors_show_in_place, publish, history_shows_version_2, diff_1_to_2, evaluate_for_ios,
         adoption_shows_held_stream, roll_back_to_version_1, export_and_import, publish_conflict_is_reported,
         server_template_keeps_its_own_draft, a_change_is_proposed_approved_and_applied, webhooks_view_adds_tests_and_rotates,
         access_view_manages_members_and_tokens,
         sign_out_forgets_the_token,
         a_viewer_is_offered_no_publish]


def phone_screenshots(args, browser):
    """The main views at a phone's width, for docs/console.md."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True, has_touch=True)
    page = context.new_page()
    run = Run(args, page)
    page.goto(args.base + "/console/")
    page.get_by_label("Admin token").fill(args.token)
    page.get_by_role("button", name="Sign in").click()
    card(run, "late_change").locator("summary").click()
    run.shot("phone-parameters")
    run.view("History")
    expect(page.locator("table.versions tbody tr")).to_have_count(6)
    run.shot("phone-history")
    run.check_reports()
    context.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--base", required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--token", required=True)
    parser.add_argument("--api-key", required=True)
    parser.add_argument("--project", required=True)
    parser.add_argument("--project-number", required=True)
    parser.add_argument("--screenshots", required=True)
    parser.add_argument("--browser", default="/usr/bin/chromium")
    args = parser.parse_args()
    pathlib.Path(args.screenshots).mkdir(parents=True, exist_ok=True)
    passed, failed = 0, 0
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=args.browser)
        print(f"browser: Chromium {browser.version}, driven by Playwright", flush=True)
        context = browser.new_context(viewport={"width": 1280, "height": 800}, accept_downloads=True)
        context.set_default_timeout(10000)
        page = context.new_page()
        run = Run(args, page)
        status, _ = run.api("PUT", run.template_path(), FIRST_TEMPLATE, {"If-Match": "*"})
        assert status == 200, "could not publish the first version"
        page.goto(args.base + "/console/")
        expect(page.get_by_role("heading", name="Sign in")).to_be_visible()
        run.shot("sign-in")
        run.check_reports()
        for step in STEPS:
            started = time.monotonic()
            try:
                step(run)
                run.check_reports()
            except Exception:  # noqa: BLE001 (report every failure, then stop: later steps build on this one)
                failed += 1
                print(f"FAIL {step.__name__}", flush=True)
                traceback.print_exc()
                page.screenshot(path=str(pathlib.Path(tempfile.gettempdir()) / f"console-e2e-{step.__name__}.png"))
                break
            passed += 1
            print(f"ok   {step.__name__} ({time.monotonic() - started:.1f} s)", flush=True)
        if failed == 0:
            try:
                phone_screenshots(args, browser)
                passed += 1
                print("ok   phone_screenshots", flush=True)
            except Exception:  # noqa: BLE001
                failed += 1
                print("FAIL phone_screenshots", flush=True)
                traceback.print_exc()
        browser.close()
    not_run = len(STEPS) + 1 - passed - failed
    print(f"console e2e: {passed} passed, {failed} failed" + (f", {not_run} not run" if not_run else ""))
    return 0 if failed == 0 and not_run == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
