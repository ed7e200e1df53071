"""The console's browser test, editing every day: signing in, parameters, conditions, JSON,
publishing, history and diffs, evaluation, the Live view, rollback, import and export, kept
drafts, conflicts and merges, the server template (run by scripts/console_e2e.py, in order)."""
import json
import pathlib
import re
import socket
import tempfile
import urllib.request

from playwright.sync_api import expect

from console_e2e_support import (
    FIRST_TEMPLATE, HOSTILE, REFUSED, add_parameter, card, diff_item, review_and_publish, sign_in_again,
)


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
