#!/usr/bin/env python3
"""The web console, end to end in headless Chromium (Debian's, driven by Playwright).

Run by scripts/console-e2e, which builds and starts the server. Every step fails on a page
error, a console error (CSP violations land there) or a JavaScript dialog; a step that makes
the server refuse a call on purpose names the one console line that refusal causes. Writes
screenshots of the main views (laptop and phone widths) to --screenshots.
"""
import argparse
import pathlib
import tempfile
import time
import sys
import traceback

from oidc_forger import Forger
from playwright.sync_api import expect, sync_playwright

from console_e2e_support import (
    FIRST_TEMPLATE, Run, VIEWS, accessibility, card, serve_console_from, show_an_evaluation_and_deliveries,
)
from console_e2e_editing import (
    a_draft_survives_a_reload, a_newer_version_is_noticed_and_merged, adoption_shows_held_stream,
    create_parameter_with_conditional_value, deleting_says_what_goes_and_undo_brings_it_back, diff_1_to_2,
    evaluate_for_ios, export_and_import, history_shows_version_2, hostile_value_renders_inert,
    json_errors_show_in_place, publish, publish_conflict_is_reported, roll_back_to_version_1,
    rollout_value_is_shown_as_kept, server_template_keeps_its_own_draft, sign_in, typed_values_and_the_filter,
    wrong_token_is_refused,
)
from console_e2e_team import (
    a_change_is_proposed_approved_and_applied, a_viewer_is_offered_no_publish,
    access_view_manages_members_and_tokens, environments_drift_and_promotion,
    insights_count_what_clients_read_and_propose_removal, sign_out_forgets_the_token,
    signing_out_keeps_drafts_and_an_ended_session_offers_sign_in_again, webhooks_view_adds_tests_and_rotates,
)
from console_e2e_scale import (
    a_thousand_parameters_stay_fast, coloured_conditions_are_readable,
    conditions_are_filtered_and_moved_to_a_position, deleting_far_down_keeps_the_place,
    every_view_passes_axe_with_data_in_its_tables,
)


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
    show_an_evaluation_and_deliveries(run)
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
