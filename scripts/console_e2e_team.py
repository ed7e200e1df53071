"""The console's browser test, the team's tools: change requests between two people, signing
out and ended sessions, webhooks, access, insights, environments, a viewer's page (run by
scripts/console_e2e.py, in order)."""
import json
import pathlib
import re
import time
import urllib.request

from playwright.sync_api import expect

from console_e2e_support import (
    REFUSED, Receiver, add_parameter, card, diff_item, leave_prompt_would_fire, serve_console_from, sign_in_again,
    sign_in_with_provider, sign_out_of_token,
)


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
    side = view.locator('table.side-by-side tr[data-key="staged_flag"]')
    expect(side.locator("td")).to_have_text(["(not in this environment)", "on"])
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
