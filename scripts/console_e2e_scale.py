"""The console's browser test at scale and for everyone: axe-core on every view with data in its
tables, a thousand parameters within the paint budgets, far-down deletes, condition filters and
moves, chip colours (run by scripts/console_e2e.py, in order)."""
import json

from playwright.sync_api import expect

from console_e2e_support import accessibility, card, show_an_evaluation_and_deliveries, sign_in_again


def every_view_passes_axe_with_data_in_its_tables(run):
    """Every view at laptop width, with a webhook endpoint and its deliveries, an evaluation, change
    requests, versions, members, tokens and the audit log on screen."""
    page = run.page
    webhooks = f"/v1/projects/{run.args.project}/webhooks"
    status, made = run.api("POST", webhooks, {"url": "http://127.0.0.1:9/hook", "description": "nothing listens", "events": ["template.publish"]})
    assert status == 200, made
    assert run.api("POST", f"{webhooks}/{made['id']}:test", {})[0] == 200
    show_an_evaluation_and_deliveries(run)
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
