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
import urllib.parse
import urllib.request

from oidc_forger import Forger
from playwright.sync_api import expect, sync_playwright

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
    # The rule is checked as typed, and the message goes once the rule is right.
    rule = form.get_by_label("Rule", exact=True)
    rule.fill("device.os = 'ios'")
    expect(form.locator(".issue:not([hidden])")).to_contain_text("expected '==' (a single '=' is not an operator) at offset 10")
    rule.fill("device.os == 'ios'")
    expect(form.locator(".issue:not([hidden])")).to_have_count(0)
    # The builder writes clauses: a percent with its seed and slider, joined with &&.
    builder = form.locator("fieldset.builder")
    builder.get_by_label("Field").select_option("percent")
    builder.get_by_label("Seed").fill("beta")
    builder.get_by_label("Percent", exact=True).fill("20")
    expect(builder.locator(".builder-preview")).to_have_text("percent('beta') <= 20")
    builder.get_by_role("button", name="Add rule").click()
    expect(rule).to_have_value("device.os == 'ios' && percent('beta') <= 20")
    builder.get_by_label("Field").select_option("appVersion")
    builder.get_by_label("Value", exact=True).fill("2.0")
    builder.get_by_role("button", name="Add rule").click()
    expect(rule).to_have_value("device.os == 'ios' && percent('beta') <= 20 && app.version.>=(['2.0'])")
    expect(form.locator(".issue:not([hidden])")).to_have_count(0)
    rule.fill("")
    expect(page.locator("li.condition")).to_have_count(2)
    # Priority by the keyboard-reachable buttons: ios_users first.
    page.get_by_role("button", name="Move ios_users up").focus()
    page.keyboard.press("Enter")
    expect(page.locator("li.condition").first.get_by_label("Name")).to_have_value("ios_users")
    run.shot("conditions")
    run.view("Parameters")
    add_parameter(run, "greeting")
    greeting = card(run, "greeting")
    greeting.get_by_label("Value", exact=True).fill("hello")
    greeting.get_by_label("Description").fill("Shown on the home screen")
    greeting.get_by_label("Condition", exact=True).select_option("ios_users")
    greeting.get_by_role("button", name="Add conditional value").click()
    greeting.locator('[data-role="conditional-ios_users"]').get_by_label("Value", exact=True).fill("hi iPhone")
    expect(page.locator(".draft-status")).to_contain_text("Unpublished changes")
    run.shot("parameters")


def typed_values_and_the_filter(run):
    page = run.page
    add_parameter(run, "dark_mode")
    dark = card(run, "dark_mode")
    dark.get_by_label("Type").select_option("BOOLEAN")
    # A BOOLEAN is a switch: it can hold true or false, nothing else.
    switch = dark.get_by_role("switch", name="Value")
    expect(switch).not_to_be_checked()
    expect(dark.locator(".issue:not([hidden])")).to_contain_text("is not a BOOLEAN value")
    switch.check()
    expect(dark.locator(".issue:not([hidden])")).to_have_count(0)
    # The filter reads values, descriptions, condition names and groups, not only keys.
    search = page.get_by_label("Filter", exact=True)
    for text, key in [("hi iphone", "greeting"), ("home screen", "greeting"), ("android_users", "rollout_flag"),
                      ("onboarding", "welcome_text")]:
        search.fill(text)
        expect(card(run, key)).to_be_visible()
        expect(page.locator("details.card:visible")).to_have_count(1)
    search.fill("")
    expect(page.locator("details.card:visible")).to_have_count(5)


def deleting_says_what_goes_and_undo_brings_it_back(run):
    page = run.page
    run.view("Conditions")
    row = page.locator('li.condition[aria-label$=": android_users"]')
    row.get_by_role("button", name="Delete android_users and its 1 conditional value").click()
    question = row.get_by_role("group", name="Delete condition android_users and its 1 conditional value?")
    expect(question).to_contain_text("the value of rollout_flag when android_users is true")
    question.get_by_role("button", name="Delete android_users and 1 value").click()
    expect(page.locator("li.condition")).to_have_count(1)
    # The keyboard: Ctrl+Z undoes, Ctrl+Shift+Z redoes (outside text fields, whose own undo comes first).
    page.locator("#view-conditions h2").focus()
    page.keyboard.press("Control+z")
    expect(page.locator("li.condition")).to_have_count(2)
    page.keyboard.press("Control+Shift+z")
    expect(page.locator("li.condition")).to_have_count(1)
    page.get_by_role("button", name="Undo delete condition android_users").click()
    expect(page.locator("li.condition")).to_have_count(2)
    # Twenty-five steps, all undone.
    run.view("Parameters")
    for index in range(25):
        add_parameter(run, f"step_{index}")
    expect(page.locator('details.card[data-key^="step_"]')).to_have_count(25)
    page.locator("#view-parameters h2").focus()
    for _ in range(25):
        page.keyboard.press("Control+z")
    expect(page.locator('details.card[data-key^="step_"]')).to_have_count(0)
    expect(card(run, "dark_mode")).to_have_count(1)
    expect(card(run, "rollout_flag").locator(".chip")).to_have_text("android_users")


def json_errors_show_in_place(run):
    page = run.page
    add_parameter(run, "layout")
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
    # Fixing the value clears the server's message beside it as it is typed.
    layout.get_by_label("Value", exact=True).fill("2")
    expect(layout.locator(".issue:not([hidden])")).to_have_count(0)
    # Deleting asks first, naming what goes.
    layout.get_by_role("button", name="Delete parameter layout").click()
    question = layout.get_by_role("group", name="Delete parameter layout?")
    expect(question).to_contain_text("its default value: 2")
    question.get_by_role("button", name="Delete layout").click()
    expect(card(run, "layout")).to_have_count(0)


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


def publish(run):
    page = run.page
    page.get_by_role("button", name="Review and publish…").click()
    review = page.locator(".review")
    # The review lists what changes against version 1, with what the additions hold, and wants a description.
    greeting = diff_item(review, "added", "greeting")
    expect(greeting).to_contain_text("type: STRING")
    expect(greeting).to_contain_text("default: hello")
    expect(greeting).to_contain_text("when ios_users: hi iPhone")
    expect(greeting).to_contain_text("description: Shown on the home screen")
    expect(diff_item(review, "added", "ios_users")).to_contain_text("rule: device.os == 'ios'")
    expect(diff_item(review, "added", "ios_users")).to_contain_text("colour: blue")
    review.get_by_role("button", name="Publish version 2").click()
    expect(review.get_by_role("alert")).to_have_text("Describe what this version changes.")
    run.shot("publish-review")
    page.get_by_label("Description of this version").fill("greeting for iOS")
    review.get_by_role("button", name="Publish version 2").click()
    expect(page.locator(".draft-bar .result")).to_have_text("Published version 2.")
    # Nothing changed since: Publish is off, so no empty version can be made.
    expect(page.get_by_role("button", name="Review and publish…")).to_be_disabled()
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
    expect(row).to_contain_text("greeting for iOS")
    # Published through the console: the version says so, as Firebase's console versions do, in words.
    expect(row).to_contain_text("Console")
    expect(row).to_contain_text("Publish")
    expect(row.locator("th")).to_have_text("2 (current)")
    # The current version cannot be rolled back to; older ones can.
    expect(row.get_by_role("button", name="Roll back to version 2")).to_have_count(0)


def diff_1_to_2(run):
    page = run.page
    compare = page.locator("#view-history form")
    compare.get_by_label("From").select_option("1")
    compare.get_by_label("To").select_option("2")
    compare.get_by_role("button", name="Show differences").click()
    output = page.locator(".history-output")
    expect(output.locator("h3")).to_have_text("Changes from version 1 to version 2")
    # The server's diff carries what was added: the values, not only the names.
    expect(diff_item(output, "added", "greeting")).to_contain_text("default: hello")
    expect(diff_item(output, "added", "greeting")).to_contain_text("when ios_users: hi iPhone")
    expect(diff_item(output, "added", "ios_users")).to_contain_text("rule: device.os == 'ios'")
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
    # The same answer as an OpenFeature (OFREP) provider gets it.
    flag = page.locator('.evaluation table.openfeature tr[data-flag="greeting"]')
    expect(flag).to_contain_text('"hi iPhone"')
    expect(flag).to_contain_text("TARGETING_MATCH")
    expect(flag).to_contain_text("ios_users")
    expect(page.locator('.evaluation table.openfeature tr[data-flag="hostile"]')).to_contain_text("hostile")
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
        # Three clients fetch version 2 once each (a client fetching twice counts once: ConfigServerTests).
        for instance in ["live-a", "live-b", "live-c"]:
            request = urllib.request.Request(
                f"{run.args.base}/v1/projects/{run.args.project_number}/namespaces/firebase:fetch", method="POST",
                data=json.dumps({"appInstanceId": instance, "appId": f"1:{run.args.project_number}:android:1"}).encode(),
                headers={"X-Goog-Api-Key": run.args.api_key, "Content-Type": "application/json"})
            with urllib.request.urlopen(request, timeout=10) as response:
                assert response.status == 200
        run.view("Live")
        row = page.locator('table.adoption tr[data-version="2"]')
        expect(row.locator("td").nth(0)).to_have_text("3", timeout=15000)
        expect(row.locator("td").nth(1)).to_have_text("3")
        expect(row.locator("td").nth(2)).to_have_text("1")
        expect(page.locator(".live-summary")).to_contain_text("Version 2 is current: 3 of 3 clients that fetched")
        expect(page.locator(".live-summary")).to_contain_text("1 held stream is told of it")
        # The plot comes with the server's minutes of history, in whole fetches.
        expect(page.locator("svg.chart polyline")).to_have_count(1)
        expect(page.locator("svg.chart text.label")).to_have_text(re.compile(r"^v2: [1-3]/min$"))
        ticks = page.locator("svg.chart text.axis").all_text_contents()
        assert all(re.fullmatch(r"\d+", tick) for tick in ticks if "ago" not in tick and tick != "now"), ticks
        run.shot("live")
    finally:
        stream.close()


def roll_back_to_version_1(run):
    page = run.page
    run.view("History")
    page.locator("table.versions").get_by_role("button", name="Roll back to version 1").click()
    confirm = page.get_by_role("group", name="Confirm rollback")
    expect(confirm).to_contain_text("Roll back to version 1?")
    # It shows what the rollback changes in the current version.
    expect(diff_item(confirm, "removed", "greeting")).to_contain_text("it held type: STRING")
    expect(diff_item(confirm, "removed", "greeting")).to_contain_text("default: hello")
    confirm.get_by_role("button", name="Roll back to version 1").click()
    expect(page.locator("#view-history .result").first).to_contain_text("version 3 has the template of version 1")
    row = page.locator("table.versions tbody tr").first
    expect(row.locator("th")).to_have_text("3 (current)")
    expect(row).to_contain_text("Rollback of version 1")
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
    page.get_by_role("button", name="Discard changes…").click()
    question = page.get_by_role("group", name="Discard 1 unpublished change?")
    expect(question).to_contain_text("+ parameter from_file added")
    question.get_by_role("button", name="Discard them").click()
    expect(card(run, "from_file")).to_have_count(0)
    # Undo brings the discarded changes back; redo discards them again.
    page.get_by_role("button", name="Undo discard changes").click()
    expect(card(run, "from_file")).to_have_count(1)
    page.get_by_role("button", name="Redo discard changes").click()
    expect(card(run, "from_file")).to_have_count(0)


def sign_in_again(run):
    page = run.page
    page.get_by_label("Admin token").fill(run.args.token)
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("heading", name="Parameters")).to_be_visible()


def a_draft_survives_a_reload(run):
    page = run.page
    add_parameter(run, "kept_over_reload")
    card(run, "kept_over_reload").get_by_label("Value", exact=True).fill("still here")
    page.wait_for_timeout(800)  # the draft is written after a pause in typing
    stored = page.evaluate("JSON.stringify(Object.entries(localStorage))")
    assert "still here" in stored and run.args.token not in stored, stored
    # Leaving with unpublished changes asks first.
    run.expected_dialogs = ["beforeunload"]
    page.reload()
    run.expected_dialogs = []
    assert run.seen_dialogs == ["beforeunload"], run.seen_dialogs
    sign_in_again(run)
    offer = page.locator("#draft-bar .notice").filter(has_text="This browser kept a draft")
    expect(offer).to_contain_text("+ parameter kept_over_reload added")
    run.shot("draft-kept")
    offer.get_by_role("button", name="Restore the kept draft").click()
    card(run, "kept_over_reload").locator("summary").click()
    expect(card(run, "kept_over_reload").get_by_label("Value", exact=True)).to_have_value("still here")
    # The steps came back with the draft: undo takes back the typing, then the new parameter.
    page.get_by_role("button", name="Undo default value of kept_over_reload").click()
    expect(card(run, "kept_over_reload").get_by_label("Value", exact=True)).to_have_value("")
    page.get_by_role("button", name="Undo new parameter kept_over_reload").click()
    expect(card(run, "kept_over_reload")).to_have_count(0)
    page.get_by_role("button", name="Redo new parameter kept_over_reload").click()
    expect(card(run, "kept_over_reload")).to_have_count(1)
    page.get_by_role("button", name="Discard changes…").click()
    page.get_by_role("button", name="Discard them").click()
    page.wait_for_timeout(800)
    assert page.evaluate("localStorage.length") == 0, "a draft equal to its version is not kept"


def publish_conflict_is_reported(run):
    page = run.page
    add_parameter(run, "late_change")
    status, current = run.api("GET", run.template_path())
    current["parameters"]["from_api"] = {"defaultValue": {"value": "published elsewhere"}}
    current["version"] = {"description": "from the API"}
    status, _ = run.api("PUT", run.template_path(), current, {"If-Match": "*"})
    assert status == 200
    run.allowed = [REFUSED[400]]
    page.get_by_role("button", name="Review and publish…").click()
    page.get_by_label("Description of this version").fill("late change")
    page.locator(".review").get_by_role("button", name=re.compile("^Publish version")).click()
    panel = page.locator(".conflict")
    expect(panel.locator("h3")).to_have_text("Someone else published first")
    expect(panel).to_contain_text("Version 4 was published by")
    expect(diff_item(panel, "added", "late_change")).to_have_count(1)
    expect(diff_item(panel, "removed", "from_api")).to_have_count(1)
    run.shot("publish-conflict")
    panel.get_by_role("button", name="Publish anyway (overwrites theirs)").click()
    expect(page.locator(".draft-bar .result")).to_have_text("Published version 5.")
    status, template = run.api("GET", run.template_path())
    assert "late_change" in template["parameters"] and "from_api" not in template["parameters"]


def a_newer_version_is_noticed_and_merged(run):
    page = run.page
    # With no changes of its own, the page loads a version published elsewhere by itself.
    status, current = run.api("GET", run.template_path())
    current["parameters"]["noticed"] = {"defaultValue": {"value": "from elsewhere"}}
    current["version"] = {"description": "elsewhere"}
    assert run.api("PUT", run.template_path(), current, {"If-Match": "*"})[0] == 200
    expect(card(run, "noticed")).to_have_count(1, timeout=15000)
    expect(page.locator(".draft-status")).to_contain_text("Editing version 6")
    # With changes of its own, it says so and offers a merge, item by item.
    late = card(run, "late_change")
    late.evaluate("node => { node.open = true; }")
    late.get_by_label("Value", exact=True).fill("mine")
    add_parameter(run, "only_mine")
    status, current = run.api("GET", run.template_path())
    current["parameters"]["late_change"] = {"defaultValue": {"value": "theirs"}}
    current["parameters"]["only_theirs"] = {"defaultValue": {"value": "t"}}
    current["parameters"]["noticed"]["description"] = "their note"
    current["version"] = {"description": "theirs again"}
    assert run.api("PUT", run.template_path(), current, {"If-Match": "*"})[0] == 200
    notice = page.locator("#draft-bar .notice").filter(has_text="Version 7 was published")
    expect(notice).to_be_visible(timeout=15000)
    notice.get_by_role("button", name="Review and merge…").click()
    panel = page.locator(".conflict")
    expect(panel.locator("h3")).to_have_text("Merge version 7 into your draft")
    taken = panel.get_by_role("region", name="Taken from their version")
    expect(taken).to_contain_text("parameter only_theirs: added: default t")
    # What changed in an item taken from them, not only its name.
    expect(taken).to_contain_text("parameter noticed: description: (none) → their note")
    expect(panel.get_by_role("region", name="Kept from your draft")).to_contain_text("parameter only_mine")
    choice = panel.get_by_role("group", name="parameter late_change")
    expect(choice).to_contain_text("Take theirs (default: (empty string) → theirs)")
    choice.get_by_role("radio", name=re.compile("Take theirs")).check()
    run.shot("merge")
    panel.get_by_role("button", name="Apply the merge").click()
    expect(card(run, "only_theirs")).to_have_count(1)
    expect(card(run, "only_mine")).to_have_count(1)
    review_and_publish(run, "merged", 8)
    status, template = run.api("GET", run.template_path())
    parameters = template["parameters"]
    assert parameters["late_change"]["defaultValue"] == {"value": "theirs"}, parameters["late_change"]
    assert "only_mine" in parameters and "only_theirs" in parameters and "noticed" in parameters, parameters.keys()


def server_template_keeps_its_own_draft(run):
    page = run.page
    add_parameter(run, "client_only_draft")
    page.get_by_label("Template", exact=True).select_option("firebase-server")
    expect(page.locator(".draft-status")).to_contain_text("No version published yet")
    add_parameter(run, "server_timeout")
    card(run, "server_timeout").get_by_label("Value", exact=True).fill("30")
    # The server template's rule help, example and builder are its own, and the example is one it takes.
    run.view("Conditions")
    form = page.locator("#view-conditions form.add-condition")
    rule = form.get_by_label("Rule", exact=True)
    example = form.locator(".field.wide .hint").first.inner_text().removeprefix("e.g. ")
    assert "device.os" not in example and "percent" in example, example
    builder = form.locator("fieldset.builder")
    assert builder.get_by_label("Field").locator("option").all_text_contents() == [
        "Custom signal (app.customSignal)", "User in random percentile (percent)"]
    rule.fill("device.os == 'ios'")
    expect(form.locator(".issue:not([hidden])")).to_contain_text("only percent and app.customSignal rules")
    rule.fill(example)
    expect(form.locator(".issue:not([hidden])")).to_have_count(0)
    form.get_by_label("New condition name").fill("pro_checkout")
    form.get_by_role("button", name="Add condition").click()
    run.view("Parameters")
    review_and_publish(run, "server timeout", 1)
    status, server = run.api("GET", f"/v1/projects/{run.args.project}/namespaces/firebase-server/remoteConfig")
    assert status == 200 and server["parameters"]["server_timeout"]["defaultValue"] == {"value": "30"}, server
    assert server["conditions"][0]["name"] == "pro_checkout", server["conditions"]
    page.get_by_label("Template", exact=True).select_option("firebase")
    expect(card(run, "client_only_draft")).to_have_count(1)
    page.get_by_role("button", name="Discard changes…").click()
    page.get_by_role("button", name="Discard them").click()


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


def a_change_is_proposed_approved_and_applied(run):
    """An editor proposes; a publisher, in another browser, sees what it holds and applies it once
    approved; the editor's page takes the new version as its own."""
    page = run.page
    policy = f"/v1/projects/{run.args.project}/namespaces/firebase/changePolicy"
    status, _ = run.api("PUT", policy, {"requiredApprovals": 1})
    assert status == 200
    for method, path, body in [("POST", "/v1/principals", {"kind": "person", "displayName": "Grace Hopper", "email": "grace@example.com"}),
                               ("PUT", f"/v1/projects/{run.args.project}/members/grace@example.com", {"role": "publisher"})]:
        assert run.api(method, path, body)[0] == 200, (method, path)
    sign_out_of_token(run)
    sign_in_with_provider(run, page, "ada@example.com", "Ada Lovelace")
    # An editor: proposing is the main action; publishing, Access and Webhooks are not offered.
    views = page.get_by_role("navigation", name="Views")
    expect(views.get_by_role("button", name="Access")).to_have_count(0)
    expect(views.get_by_role("button", name="Webhooks")).to_have_count(0)
    expect(page.get_by_role("button", name="Review and publish…")).to_have_count(0)
    expect(page.locator("#draft-bar")).to_contain_text("Publishing this template needs 1 approval")
    add_parameter(run, "reviewed_flag")
    card(run, "reviewed_flag").get_by_label("Value", exact=True).fill("yes please")
    propose = page.get_by_role("button", name="Propose for review…")
    expect(propose).to_have_class(re.compile(r"\bprimary\b"))
    propose.click()
    review = page.locator(".review")
    expect(diff_item(review, "added", "reviewed_flag")).to_contain_text("default: yes please")
    page.get_by_label("Description of this version").fill("reviewed")
    review.get_by_role("button", name="Propose these changes").click()
    expect(page.locator(".draft-bar .result")).to_contain_text("Proposed change request #1")
    # The draft is the change request's now: it settles, and leaving would lose nothing.
    expect(page.locator(".draft-status")).to_contain_text("proposed for review as change request #1")
    expect(page.locator(".draft-status")).not_to_contain_text("Unpublished changes")
    assert not leave_prompt_would_fire(page), "a proposed draft still asks before the page is left"
    # A publisher, in another browser: sees what it holds, approves, and only then may apply.
    other = page.context.browser.new_context(viewport={"width": 1280, "height": 800})
    other.set_default_timeout(10000)
    serve_console_from(run.args, other)
    grace = other.new_page()
    grace.goto(run.args.base + "/console/")
    sign_in_with_provider(run, grace, "grace@example.com", "Grace Hopper")
    grace.get_by_role("navigation", name="Views").get_by_role("button", name="Changes", exact=True).click()
    view = grace.locator("#view-changes")
    view.get_by_role("button", name="Open change request 1").click()
    detail = view.locator(".change-detail")
    expect(diff_item(detail, "added", "reviewed_flag")).to_contain_text("default: yes please")
    expect(detail).to_contain_text("Approvals: 0 of 1.")
    expect(view.get_by_role("button", name="Apply change request 1")).to_have_count(0)
    expect(detail).to_contain_text("It can be applied once it has 1 approval; it has 0.")
    view.get_by_role("button", name="View the proposed template").click()
    expect(detail.get_by_role("region", name="The template change request 1 proposes")).to_contain_text('"reviewed_flag"')
    view.get_by_label("Comment").fill("looks right")
    view.get_by_role("button", name="Approve").click()
    expect(view.get_by_role("status")).to_have_text("Change request #1 is approved.")
    view.get_by_role("button", name="Apply change request 1").click()
    expect(view.get_by_role("status")).to_contain_text("Applied change request #1: version")
    status, template = run.api("GET", run.template_path())
    assert "reviewed_flag" in template["parameters"], template["parameters"].keys()
    number = template["version"]["versionNumber"]
    grace.screenshot(path=str(pathlib.Path(run.args.screenshots) / "changes.png"), full_page=True)
    other.close()
    # The editor's page takes the new version as its own: no merge, nothing unpublished.
    expect(page.locator(".draft-bar .result")).to_contain_text(
        f"Your change request #1 was applied as version {number} by grace@example.com, approved by grace@example.com.", timeout=15000)
    expect(page.locator(".draft-status")).to_contain_text(f"Editing version {number}")
    expect(page.locator(".draft-status")).to_contain_text("No unpublished changes.")
    expect(page.locator("#draft-bar .notice").filter(has_text="while you edit")).to_have_count(0)
    # History names who proposed and who approved it, beside who applied it.
    run.view("History")
    row = page.locator("table.versions tbody tr").first
    expect(row).to_contain_text("grace@example.com (applied change request #1)")
    expect(row).to_contain_text("proposed by ada@example.com")
    expect(row).to_contain_text("approved by grace@example.com")
    status, _ = run.api("PUT", policy, {"requiredApprovals": 0})
    assert status == 200
    run.view("Parameters")
    page.get_by_role("button", name="Sign out").click()
    sign_in_again(run)


def signing_out_keeps_drafts_and_an_ended_session_offers_sign_in_again(run):
    """Ada, signed in through the provider, keeps her drafts over signing out, and over a session an
    owner ends under her page; only when she says so are they discarded."""
    page = run.page
    sign_in_with_provider(run, page, "ada@example.com", "Ada Lovelace")
    add_parameter(run, "kept_over_sign_out")
    card(run, "kept_over_sign_out").get_by_label("Value", exact=True).fill("still mine")
    page.get_by_role("button", name="Sign out").click()
    question = page.get_by_role("group", name=re.compile("^Sign out\\? You have unpublished changes"))
    expect(question).to_contain_text(f"{run.args.project}, client template")
    # Keeping them is the default: the focused button.
    expect(question.get_by_role("button", name="Sign out and keep them")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator("#page-status")).to_contain_text("Your unpublished changes are kept in this browser")
    stored = page.evaluate("JSON.stringify(Object.entries(localStorage))")
    assert "still mine" in stored and "ada@example.com" in stored, stored
    sign_in_with_provider(run, page, "ada@example.com", "Ada Lovelace")
    offer = page.locator("#draft-bar .notice").filter(has_text="This browser kept a draft")
    expect(offer).to_contain_text("+ parameter kept_over_sign_out added")
    offer.get_by_role("button", name="Restore the kept draft").click()
    expect(card(run, "kept_over_sign_out")).to_have_count(1)
    # The undo steps came back with it.
    expect(page.get_by_role("button", name="Undo default value of kept_over_sign_out")).to_be_enabled()
    # An owner ends the session: the page notices by itself, says so, and offers the way back.
    status, listed = run.api("GET", "/v1/sessions")
    ids = [entry["id"] for entry in listed["sessions"] if entry["principal"] == "ada@example.com"]
    assert status == 200 and ids, listed
    run.allowed = [REFUSED[401]]
    for session_id in ids:
        assert run.api("DELETE", f"/v1/sessions/{session_id}")[0] == 204
    ended = page.get_by_role("region", name="Signed out")
    expect(ended.get_by_role("heading", name="Your session has ended")).to_be_visible(timeout=15000)
    expect(ended).to_contain_text("Your unpublished changes are kept in this browser")
    expect(page.locator("#workspace")).to_be_hidden()
    expect(page.locator("#who")).to_be_hidden()
    run.shot("session-ended")
    run.provider.person = {"email": "ada@example.com", "name": "Ada Lovelace"}
    ended.get_by_role("link", name="Sign in again").click()
    expect(page.locator("#who")).to_have_text("Signed in as Ada Lovelace")
    offer.get_by_role("button", name="Restore the kept draft").click()
    card(run, "kept_over_sign_out").locator("summary").click()
    expect(card(run, "kept_over_sign_out").get_by_label("Value", exact=True)).to_have_value("still mine")
    # Discarding is a choice of its own.
    page.get_by_role("button", name="Sign out").click()
    page.get_by_role("button", name="Sign out and discard them").click()
    expect(page.get_by_label("Admin token")).to_be_visible()
    stored = page.evaluate("JSON.stringify(Object.entries(localStorage))")
    assert "ada@example.com" not in stored, stored


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
    view.get_by_role("button", name=f"Send test event to {receiver.url}").click()
    expect(view.get_by_role("status")).to_have_text("A test event is on its way.")
    deadline = time.monotonic() + 10
    while not receiver.received and time.monotonic() < deadline:
        time.sleep(0.05)
    assert receiver.received, "the receiver got nothing"
    headers, body = receiver.received[0]
    assert json.loads(body)["type"] == "test" and headers.get("webhook-signature", "").startswith("v1,"), headers
    view.get_by_role("button", name=f"Deliveries to {receiver.url}").click()
    expect(view.locator("table.deliveries")).to_contain_text("delivered")
    view.get_by_role("button", name=f"Rotate secret of {receiver.url}").click()
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


def insights_count_what_clients_read_and_propose_removal(run):
    """Fetches are counted exactly: a key's row shows them, its sparkline and its app versions; a
    key published after them is never evaluated, offered for removal as a change request, and
    marked permanent leaves the list."""
    page = run.page
    fetch = f"{run.args.base}/v1/projects/{run.args.project_number}/namespaces/firebase:fetch"
    for instance in ["insight-a", "insight-b", "insight-c"]:
        request = urllib.request.Request(fetch, method="POST", headers={"X-Goog-Api-Key": run.args.api_key, "Content-Type": "application/json"},
                                         data=json.dumps({"appInstanceId": instance, "appId": f"1:{run.args.project_number}:android:1",
                                                          "appVersion": "3.1.0"}).encode())
        with urllib.request.urlopen(request, timeout=10) as response:
            assert response.status == 200
    status, before = run.api("GET", run.template_path())
    assert status == 200, before
    read = sorted(before["parameters"])[0]
    before.pop("version", None)
    grown = json.loads(json.dumps(before))
    grown["parameters"]["unused_banner"] = {"defaultValue": {"value": "hello"}}
    status, published = run.api("PUT", run.template_path(), grown, {"If-Match": "*"})
    assert status == 200, published
    run.view("Insights")
    view = page.locator("#view-insights")
    row = view.locator(f'tr[data-key="{read}"]')
    # Each worker writes its counts every second here (scripts/console-e2e): Refresh until they are in.
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        view.get_by_role("button", name="Refresh").click()
        page.wait_for_timeout(200)
        if row.count() and int(row.locator("td.number").inner_text().replace(",", "") or 0) >= 3:
            break
    evaluations = int(row.locator("td.number").inner_text().replace(",", ""))
    assert evaluations >= 3, f"{read} shows {evaluations} evaluations"
    expect(row.get_by_role("img")).to_have_attribute("aria-label", re.compile(rf"^{read}: \d+ evaluations in 30 days"))
    expect(row).to_contain_text("3.1.0")
    expect(row).to_contain_text("default")
    banner = view.locator('tr[data-key="unused_banner"]')
    expect(banner).to_contain_text("Never evaluated")
    candidates = view.locator("fieldset.candidates")
    expect(candidates).to_contain_text("unused_banner (never evaluated)")
    expect(candidates).not_to_contain_text(read)
    run.shot("insights")
    view.get_by_role("button", name="Propose removal").click()
    expect(view.get_by_role("status")).to_contain_text(re.compile(r"Proposed change request #(\d+) removing unused_banner"))
    number = re.search(r"#(\d+)", view.get_by_role("status").inner_text()).group(1)
    requests = f"/v1/projects/{run.args.project}/namespaces/firebase/changeRequests"
    status, proposal = run.api("GET", f"{requests}/{number}")
    assert status == 200 and proposal["description"].endswith("unused_banner"), proposal
    assert sorted(proposal["template"]["parameters"]) == sorted(before["parameters"]), "exactly the key proposed goes"
    assert run.api("POST", f"{requests}/{number}:cancel", {})[0] == 200
    banner.get_by_role("button", name="Mark permanent: unused_banner").click()
    expect(view.get_by_role("status")).to_have_text("unused_banner is permanent: never stale.")
    expect(banner).to_contain_text("Permanent")
    expect(view.get_by_text("No parameter is stale or never evaluated.")).to_be_visible()
    banner.get_by_role("button", name="Not permanent: unused_banner").click()
    expect(view.get_by_role("status")).to_have_text("unused_banner is no longer permanent.")
    assert run.api("PUT", run.template_path(), before, {"If-Match": "*"})[0] == 200


def environments_drift_and_promotion(run):
    """An environment added in the page is offered at once; its template is edited on its own;
    the drift table names the parameter only it has, and promoting that parameter into
    production, after the review, makes a version that says where it came from."""
    page = run.page
    base = f"/v1/projects/{run.args.project}"
    run.view("Environments")
    view = page.locator("#view-environments")
    view.get_by_label("New environment id").fill("staging")
    view.get_by_role("button", name="Add environment").click()
    expect(view.get_by_role("status")).to_contain_text("Added staging")
    status, current = run.api("GET", run.template_path())
    current.pop("version", None)
    staged = json.loads(json.dumps(current))
    staged["parameters"]["staged_flag"] = {"defaultValue": {"value": "on"}}
    status, answer = run.api("PUT", base + "/environments/staging/remoteConfig", staged, {"If-Match": "*"})
    assert status == 200, answer
    page.get_by_label("Environment", exact=True).select_option("staging")
    run.view("Parameters")
    expect(card(run, "staged_flag")).to_be_visible()
    page.get_by_label("Environment", exact=True).select_option("production")
    expect(card(run, "staged_flag")).to_have_count(0)
    run.view("Environments")
    row = view.locator('table.drift tr[data-key="staged_flag"]')
    expect(row).to_contain_text("only in Staging")
    run.shot("environments")
    view.get_by_label("staged_flag").check()
    view.get_by_role("button", name="Review promotion into Production…").click()
    expect(diff_item(view, "added", "staged_flag")).to_be_visible()
    view.get_by_role("button", name="Promote", exact=True).click()
    expect(view.get_by_role("status")).to_contain_text(re.compile(r"Promoted staging/1 into Production: version \d+\."))
    status, template = run.api("GET", run.template_path())
    assert template["parameters"]["staged_flag"]["defaultValue"]["value"] == "on", template["parameters"].keys()
    assert template["version"].get("promotedFrom") == {"environment": "staging", "versionNumber": "1"}, template["version"]
    expect(view.get_by_text("Every environment's client template has the same parameters as Production's.")).to_be_visible()


VIEWS = ("Parameters", "Conditions", "Groups", "History", "Changes", "Evaluate", "Live", "Insights", "Environments", "Access", "Webhooks")


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


def every_view_passes_axe_with_data_in_its_tables(run):
    """Every view at laptop width, with a webhook endpoint and its deliveries, an evaluation, change
    requests, versions, members, tokens and the audit log on screen."""
    page = run.page
    webhooks = f"/v1/projects/{run.args.project}/webhooks"
    status, made = run.api("POST", webhooks, {"url": "http://127.0.0.1:9/hook", "description": "nothing listens", "events": ["template.publish"]})
    assert status == 200, made
    assert run.api("POST", f"{webhooks}/{made['id']}:test", {})[0] == 200
    run.view("Evaluate")
    page.get_by_label("App ID").fill(f"1:{run.args.project_number}:ios:0a1b2c3d")
    page.get_by_role("button", name="Evaluate for this client").click()
    expect(page.locator(".evaluation table.openfeature")).to_be_visible()
    run.view("Webhooks")
    page.get_by_role("button", name="Deliveries to http://127.0.0.1:9/hook").click()
    expect(page.locator("table.deliveries")).to_be_visible()
    status, current = run.api("GET", run.template_path())
    current.pop("version", None)
    status, _ = run.api("POST", f"/v1/projects/{run.args.project}/namespaces/firebase/changeRequests",
                        {"template": current, "description": "an open request for the table"})
    assert status == 200, status
    run.view("Changes")
    expect(page.locator("table.changes tbody tr th")).not_to_have_count(0)
    accessibility(run)


TAG_COLORS = ["BLUE", "BROWN", "CYAN", "DEEP_ORANGE", "GREEN", "INDIGO", "LIME", "ORANGE", "PINK", "PURPLE", "TEAL"]


def big_template(seed=0):
    """1,000 parameters and 50 conditions in every Firebase colour, mixed as a real template is: 45 %
    STRING, 25 % BOOLEAN, 20 % NUMBER and 10 % JSON; 80 % described; a third with 1–3 conditional
    values; 40 % in 6 groups."""
    conditions = [{"name": f"cond_{index:02}", "expression": f"app.userProperty['level'] >= {index}",
                   "tagColor": TAG_COLORS[index % len(TAG_COLORS)]} for index in range(50)]
    groups = {f"group_{index}": {"description": f"Group {index}", "parameters": {}} for index in range(6)}
    parameters = {}
    for index in range(1000):
        kind = index % 20
        value_type, value = (("STRING", f"value {index}") if kind < 9 else ("BOOLEAN", "true" if index % 2 else "false")
                             if kind < 14 else ("NUMBER", str(index * 7 + seed)) if kind < 18 else ("JSON", json.dumps({"n": index})))
        parameter = {"defaultValue": {"value": value}, "valueType": value_type}
        if index % 5:
            parameter["description"] = f"Parameter number {index}"
        if index % 3 == 0:
            parameter["conditionalValues"] = {f"cond_{(index + step * 17) % 50:02}": {"value": value} for step in range(1 + index % 3 + (index % 9 == 0))}
        if index % 5 < 2:
            groups[f"group_{index % 6}"]["parameters"][f"param_{index:04}"] = parameter
        else:
            parameters[f"param_{index:04}"] = parameter
    return {"conditions": conditions, "parameters": parameters, "parameterGroups": groups}


def publish_big_template(run, project, number):
    assert run.api("POST", "/v1/projects", {"projectId": project, "projectNumber": number})[0] == 200
    status, _ = run.api("PUT", f"/v1/projects/{project}/namespaces/firebase/remoteConfig", big_template(), {"If-Match": "*"})
    assert status == 200


# What a person waits, from the input to the next painted frame (Run.latency), in milliseconds.
BUDGETS = {"first paint of Parameters": 300, "a filter keystroke": 50, "clearing the filter": 50, "back from History": 100}
FIRST_CARD = "param_0002"
FILTER_STATUS = "document.querySelector('#view-parameters [role=status]')"
CARD_PAINTED = (f"document.querySelector('#view-parameters details.card[data-key={FIRST_CARD}]')?.checkVisibility() "
                f"&& document.querySelector('#view-parameters details.card[data-key={FIRST_CARD}]').getBoundingClientRect().height > 0")


def a_thousand_parameters_stay_fast(run):
    """The budgets of docs/benchmarks.md, each from the input event to the next painted frame."""
    page = run.page
    projects = [("perf-project", "555000111"), ("perf-project-2", "555000112"), ("perf-project-3", "555000113")]
    for project, number in projects:
        publish_big_template(run, project, number)
    sign_in_again(run)
    samples = {name: [] for name in BUDGETS}
    select = page.get_by_label("Project")
    # Each project is opened for the first time: the template is fetched and drawn. The cards of
    # the project before are marked, so that only a card of the chosen one counts.
    for project, _ in reversed(projects):
        page.evaluate("document.querySelectorAll('details.card').forEach((node) => { node.dataset.before = 'yes'; })")
        samples["first paint of Parameters"].append(run.latency(
            "change", f"{CARD_PAINTED} && !document.querySelector('details.card[data-key={FIRST_CARD}]').dataset.before",
            lambda project=project: select.select_option(project)))
    search = page.get_by_label("Filter", exact=True)
    for _ in range(3):
        search.focus()
        typed = ""
        for key in "value 12":
            typed += key
            samples["a filter keystroke"].append(run.latency(
                "keydown", f"{FILTER_STATUS}.textContent.includes('“{typed.strip()}”')", lambda key=key: page.keyboard.press(key)))
        expect(page.locator("details.card:visible")).to_have_count(9)
        page.keyboard.press("Control+a")
        samples["clearing the filter"].append(run.latency(
            "keydown", f"{FILTER_STATUS}.textContent === '' && {CARD_PAINTED}", lambda: page.keyboard.press("Backspace")))
    parameters_tab = page.get_by_role("navigation", name="Views").get_by_role("button", name="Parameters", exact=True)
    for _ in range(3):
        run.view("History")
        expect(page.locator("table.versions tbody tr")).to_have_count(1)
        samples["back from History"].append(run.latency("click", CARD_PAINTED, parameters_tab.click))
    over = []
    for name, values in samples.items():
        values.sort()
        median = values[len(values) // 2]
        print(f"     {name}: median {median:.0f} ms, worst {values[-1]:.0f} ms over {len(values)} "
              f"({', '.join(f'{value:.0f}' for value in values)}); budget {BUDGETS[name]} ms", flush=True)
        if median > BUDGETS[name]:
            over.append(f"{name}: median {median:.0f} ms > {BUDGETS[name]} ms")
    assert not over, "; ".join(over)


def deleting_far_down_keeps_the_place(run):
    """Deleting a parameter far down the list keeps the page where it was and focus on the card that
    takes its place; undo brings it back, with focus on it."""
    page = run.page
    target = card(run, "param_0903")
    target.scroll_into_view_if_needed()
    target.locator("summary").click()
    following = target.evaluate("(node) => node.nextElementSibling.dataset.key")
    target.get_by_role("button", name="Delete parameter param_0903").click()
    # The question has the focus on its confirming button; Enter confirms where the page is.
    expect(target.get_by_role("button", name="Delete param_0903")).to_be_focused()
    before = page.evaluate("scrollY")
    assert before > 10000, before
    page.keyboard.press("Enter")
    expect(card(run, "param_0903")).to_have_count(0)
    # The page stays where it was, give or take the deleted card's height, with the card after it in view.
    after = page.evaluate("scrollY")
    assert abs(after - before) < 800, f"the page moved from {before} to {after}"
    focused = page.evaluate("document.activeElement.closest('details.card')?.dataset.key ?? document.activeElement.tagName")
    assert focused == following, f"focus is on {focused}, not on {following}"
    box = card(run, following).bounding_box()
    assert box and 0 <= box["y"] <= 800, box
    page.keyboard.press("Control+z")
    expect(card(run, "param_0903")).to_have_count(1)
    expect(card(run, "param_0903").locator("summary")).to_be_focused()
    box = card(run, "param_0903").bounding_box()
    assert box and 0 <= box["y"] <= 800, box
    assert abs(page.evaluate("scrollY") - before) < 800, (before, page.evaluate("scrollY"))


def conditions_are_filtered_and_moved_to_a_position(run):
    """Fifty conditions: a filter finds one, and a position moves it there in one step."""
    page = run.page
    run.view("Conditions")
    view = page.locator("#view-conditions")
    expect(view.locator("li.condition")).to_have_count(50)
    view.get_by_label("Filter conditions").fill("cond_49")
    expect(view.locator("li.condition:visible")).to_have_count(1)
    row = view.locator("li.condition:visible")
    row.get_by_label("Position").fill("1")
    row.get_by_label("Position").press("Enter")
    expect(view.locator("li.condition").first.get_by_label("Name")).to_have_value("cond_49")
    expect(view.locator("li.condition").nth(1).get_by_label("Name")).to_have_value("cond_00")
    view.get_by_label("Filter conditions").fill("deep orange")
    expect(view.locator("li.condition:visible")).to_have_count(5)
    view.get_by_label("Filter conditions").fill("")
    page.get_by_role("button", name="Undo move cond_49").click()
    expect(view.locator("li.condition").first.get_by_label("Name")).to_have_value("cond_00")
    run.view("Parameters")


def coloured_conditions_are_readable(run):
    """Every Firebase colour's chip reaches 4.5:1, and axe finds nothing serious on the views that
    show chips, at laptop and phone widths, with 1,000 parameters and 50 coloured conditions."""
    page = run.page
    run.view("Conditions")
    ratios = page.evaluate("""() => {
      const luminance = (color) => {
        const [r, g, b] = color.match(/[\\d.]+/g).slice(0, 3).map((part) => {
          const c = Number(part) / 255;
          return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
        });
        return 0.2126 * r + 0.7152 * g + 0.0722 * b;
      };
      const ratios = {};
      for (const chip of document.querySelectorAll('#view-conditions li.condition > .chip')) {
        const color = [...chip.classList].find((name) => name.startsWith('color-')).slice(6);
        const style = getComputedStyle(chip);
        const [light, dark] = [luminance(style.color), luminance(style.backgroundColor)].sort((a, b) => b - a);
        ratios[color] = (light + 0.05) / (dark + 0.05);
      }
      return ratios;
    }""")
    assert sorted(ratios) == sorted(TAG_COLORS), ratios
    weak = {color: round(ratio, 2) for color, ratio in ratios.items() if ratio < 4.5}
    assert not weak, f"chips below 4.5:1: {weak}"
    print("     chip contrast: " + ", ".join(f"{color} {ratio:.2f}" for color, ratio in sorted(ratios.items())), flush=True)
    run.view("Evaluate")
    page.get_by_label("User properties").fill("level=30")
    page.get_by_role("button", name="Evaluate for this client").click()
    expect(page.locator(".evaluation table").first).to_be_visible()
    run.view("Parameters")
    card(run, "param_0003").locator("summary").click()
    accessibility(run, ("Parameters", "Conditions", "Evaluate"), "laptop, 1,000 parameters")
    page.set_viewport_size({"width": 390, "height": 844})
    try:
        accessibility(run, ("Parameters", "Conditions", "Evaluate"), "390 px, 1,000 parameters")
    finally:
        page.set_viewport_size({"width": 1280, "height": 800})
    page.get_by_role("button", name="Sign out").click()
    expect(page.get_by_label("Admin token")).to_be_visible()


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
    # Nothing the role cannot do is offered; the bar says what it can.
    for name in ["Review and publish…", "Propose for review…", "Validate"]:
        expect(page.get_by_role("button", name=name)).to_have_count(0)
    expect(page.locator("#draft-bar")).to_contain_text("You hold viewer on this project: you can read this template")
    run.view("History")
    expect(page.get_by_role("button", name="Roll back to version 1", exact=True)).to_be_disabled()
    page.get_by_role("button", name="Sign out").click()
    expect(page.get_by_label("Admin token")).to_be_visible()


STEPS = [wrong_token_is_refused, sign_in, hostile_value_renders_inert, rollout_value_is_shown_as_kept,
         create_parameter_with_conditional_value, typed_values_and_the_filter, deleting_says_what_goes_and_undo_brings_it_back,
         json_errors_show_in_place, publish, history_shows_version_2, diff_1_to_2, evaluate_for_ios,
         adoption_shows_held_stream, roll_back_to_version_1, export_and_import, a_draft_survives_a_reload,
         publish_conflict_is_reported, a_newer_version_is_noticed_and_merged,
         server_template_keeps_its_own_draft, a_change_is_proposed_approved_and_applied, webhooks_view_adds_tests_and_rotates,
         access_view_manages_members_and_tokens, insights_count_what_clients_read_and_propose_removal,
         environments_drift_and_promotion,
         every_view_passes_axe_with_data_in_its_tables,
         sign_out_forgets_the_token, signing_out_keeps_drafts_and_an_ended_session_offers_sign_in_again,
         a_thousand_parameters_stay_fast, deleting_far_down_keeps_the_place,
         conditions_are_filtered_and_moved_to_a_position, coloured_conditions_are_readable,
         a_viewer_is_offered_no_publish]


def phone_screenshots(args, browser):
    """The views at a phone's width: the first screen shows parameters, nothing scrolls sideways
    (every table stacks its rows), the actions stay on screen, and axe finds nothing serious."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True, has_touch=True)
    context.set_default_timeout(10000)
    serve_console_from(args, context)
    page = context.new_page()
    run = Run(args, page)
    page.goto(args.base + "/console/")
    page.get_by_label("Admin token").fill(args.token)
    page.get_by_role("button", name="Sign in").click()
    expect(page.locator("details.card").first).to_be_visible()
    first = page.locator("details.card").first.bounding_box()
    assert first["y"] + 40 <= 844, f"the first parameter starts at {first['y']:.0f} px, below the first screen"
    run.shot("phone-parameters")
    card(run, "late_change").locator("summary").click()
    run.view("Evaluate")
    page.get_by_label("App ID").fill(f"1:{args.project_number}:ios:0a1b2c3d")
    page.get_by_role("button", name="Evaluate for this client").click()
    expect(page.locator(".evaluation table.openfeature")).to_be_visible()
    run.view("Webhooks")
    page.get_by_role("button", name="Deliveries to http://127.0.0.1:9/hook").click()
    expect(page.locator("table.deliveries")).to_be_visible()
    on_screen = {"History": ["View version 8", "Roll back to version 8"], "Changes": ["Open change request 1"],
                 "Access": ["Give role"], "Webhooks": ["Delete http://127.0.0.1:9/hook"]}
    for name in VIEWS:
        run.view(name)
        page.wait_for_timeout(200)
        # No sideways scrolling, of the page or of a table.
        assert page.evaluate("document.documentElement.scrollWidth") <= 390, name
        wide = page.evaluate("[...document.querySelectorAll('.table-scroll')].filter((node) => node.checkVisibility() "
                             "&& node.scrollWidth > node.clientWidth).map((node) => node.getAttribute('aria-label'))")
        assert not wide, f"{name}: these tables scroll sideways at 390 px: {wide}"
        for button in on_screen.get(name, []):
            box = page.get_by_role("button", name=button).first.bounding_box()
            assert box and box["x"] >= 0 and box["x"] + box["width"] <= 390, (name, button, box)
        if name in ("History", "Live", "Changes", "Insights", "Environments", "Access", "Evaluate", "Webhooks"):
            run.shot(f"phone-{name.lower()}")
    run.view("Live")
    size = page.evaluate("parseFloat(getComputedStyle(document.querySelector('svg.chart text.axis')).fontSize)")
    box = page.locator("svg.chart").bounding_box()
    view_width = float(page.locator("svg.chart").get_attribute("viewBox").split()[2])
    assert size * box["width"] / view_width >= 11, (size, box, view_width)
    accessibility(run, VIEWS, "390 px")
    run.check_reports()
    context.close()


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


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--base", required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--token", required=True)
    parser.add_argument("--api-key", required=True)
    parser.add_argument("--project", required=True)
    parser.add_argument("--project-number", required=True)
    parser.add_argument("--screenshots", required=True)
    parser.add_argument("--oidc-port", type=int, required=True, help="where to run the OpenID provider the server's signIn names")
    parser.add_argument("--browser", default="/usr/bin/chromium")
    parser.add_argument("--console-dir", help="serve the console's files from this folder instead of the server's "
                        "(the server's headers kept): to try the test on another version of the console without a build")
    parser.add_argument("--only", nargs="*", help="run only these steps (later steps build on earlier ones)")
    parser.add_argument("--keep-going", action="store_true", help="run the steps after a failed one too (they may then fail for its reason)")
    args = parser.parse_args()
    pathlib.Path(args.screenshots).mkdir(parents=True, exist_ok=True)
    provider = Forger(args.oidc_port)
    passed, failed = 0, 0
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=args.browser)
        print(f"browser: Chromium {browser.version}, driven by Playwright", flush=True)
        context = browser.new_context(viewport={"width": 1280, "height": 800}, accept_downloads=True)
        context.set_default_timeout(10000)
        serve_console_from(args, context)
        page = context.new_page()
        run = Run(args, page, provider)
        status, _ = run.api("PUT", run.template_path(), FIRST_TEMPLATE, {"If-Match": "*"})
        assert status == 200, "could not publish the first version"
        page.goto(args.base + "/console/")
        expect(page.get_by_role("heading", name="Sign in")).to_be_visible()
        run.shot("sign-in")
        run.check_reports()
        for step in [step for step in STEPS if not args.only or step.__name__ in args.only]:
            started = time.monotonic()
            try:
                step(run)
                run.check_reports()
            except Exception:  # noqa: BLE001 (report every failure, then stop: later steps build on this one)
                failed += 1
                print(f"FAIL {step.__name__}", flush=True)
                traceback.print_exc()
                page.screenshot(path=str(pathlib.Path(tempfile.gettempdir()) / f"console-e2e-{step.__name__}.png"))
                if not args.keep_going:
                    break
                run.problems = []
                run.allowed = []
                continue
            passed += 1
            print(f"ok   {step.__name__} ({time.monotonic() - started:.1f} s)", flush=True)
        if failed == 0 or args.keep_going:
            try:
                phone_screenshots(args, browser)
                passed += 1
                print("ok   phone_screenshots", flush=True)
            except Exception:  # noqa: BLE001
                failed += 1
                print("FAIL phone_screenshots", flush=True)
                traceback.print_exc()
        browser.close()
    not_run = len([step for step in STEPS if not args.only or step.__name__ in args.only]) + 1 - passed - failed
    print(f"console e2e: {passed} passed, {failed} failed" + (f", {not_run} not run" if not_run else ""))
    return 0 if failed == 0 and not_run == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
