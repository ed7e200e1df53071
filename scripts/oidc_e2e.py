#!/usr/bin/env python3
"""Sign-in with OpenID Connect, end to end (run by scripts/oidc-e2e, which builds the server).

Two servers, each with 2 workers and an empty data directory:

* one signs in with oidc-provider-mock (a real OpenID provider from PyPI), driven in Debian's
  Chromium: sign in, see your name, publish, the version's updateUser is you, sign out;
* one signs in with a forging provider this script runs, whose token endpoint answers with the
  ID token a check asks for: a wrong signature, a wrong audience, an expired one, `alg: none`,
  a wrong nonce; a replayed state; and a provider that does not answer, which must fail that
  sign-in in bounded time while everything else is answered at once.
"""
import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import urllib.parse
import urllib.request

from oidc_forger import CLIENT_ID, Forger, free_port, request
from playwright.sync_api import expect, sync_playwright

PROJECT = "example-project"
BOOT_TOKEN = "boot-token"


# MARK: the servers

class Server:
    def __init__(self, binary, work, name, sign_in):
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        directory = pathlib.Path(work) / name
        directory.mkdir()
        config = {
            "adminTokens": [{"name": "boot", "token": BOOT_TOKEN}],
            "projects": [{"id": PROJECT, "number": "123456789012", "apiKeys": ["key"]}],
            "signIn": sign_in,
        }
        (directory / "config.json").write_text(json.dumps(config))
        self.log = open(directory / "server.log", "w")
        self.process = subprocess.Popen(
            [binary, "--config", str(directory / "config.json"), "--host", "127.0.0.1", "--port", str(self.port),
             "--data-dir", str(directory / "data"), "--workers", "2"], stdout=self.log, stderr=subprocess.STDOUT)
        wait_until_ready(self.base + "/readyz", self.process)

    def api(self, method, path, body=None):
        status, _, data = request(self.base + path, method, {"Authorization": f"Bearer {BOOT_TOKEN}",
                                                              "Content-Type": "application/json"},
                                  None if body is None else json.dumps(body).encode())
        return status, json.loads(data or b"null")

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=15)
        self.log.close()


def wait_until_ready(url, process=None, tries=150):
    for _ in range(tries):
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"{url}: the process exited with {process.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=1):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"{url} did not become ready")


# MARK: the checks against the forging provider

def start_sign_in(server, forger, mode):
    """Leaves for the provider; returns the callback URL the provider would send back."""
    status, headers, _ = request(server.base + "/auth/oidc/login?returnTo=/console/")
    assert status == 302, f"login answered {status}"
    query = urllib.parse.parse_qs(urllib.parse.urlparse(headers["Location"]).query)
    assert query["code_challenge_method"] == ["S256"] and len(query["code_challenge"][0]) == 43, query
    assert query["redirect_uri"] == [server.base + "/auth/oidc/callback"], query
    forger.mode, forger.nonce = mode, query["nonce"][0]
    return f"{server.base}/auth/oidc/callback?code=c-{mode}&state={query['state'][0]}"


def forged_tokens_are_refused(server, forger):
    reasons = {"wrong_signature": "signature does not verify", "wrong_audience": "not for this client",
               "expired": "has expired", "alg_none": "algorithm 'none' is not accepted",
               "wrong_nonce": "nonce is not this sign-in's"}
    for mode, reason in reasons.items():
        status, headers, body = request(start_sign_in(server, forger, mode))
        assert status == 400, f"{mode}: {status}"
        assert "Set-Cookie" not in headers, f"{mode}: a cookie was set"
        assert reason in body.decode(), f"{mode}: {body.decode()}"


def a_state_is_used_once(server, forger):
    callback = start_sign_in(server, forger, "good")
    status, headers, _ = request(callback)
    assert status == 302 and headers["Location"] == "/console/", status
    cookie = headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie and cookie.startswith("rcs_session=rcs_ses_"), cookie
    status, headers, body = request(callback)
    assert status == 400 and "Set-Cookie" not in headers and b"already used" in body, (status, body)
    # An owner sees the session and ends it: the cookie is refused at once.
    secret = cookie.split(";")[0].split("=", 1)[1]
    status, _, _ = request(server.base + "/v1/me", headers={"Cookie": f"rcs_session={secret}"})
    assert status == 200, status
    status, listed = server.api("GET", "/v1/sessions")
    ids = [entry["id"] for entry in listed["sessions"] if entry["principal"] == "grace@example.com"]
    assert status == 200 and len(ids) == 1, listed
    status, _ = server.api("DELETE", f"/v1/sessions/{ids[0]}")
    assert status == 204, status
    status, _, _ = request(server.base + "/v1/me", headers={"Cookie": f"rcs_session={secret}"})
    assert status == 401, f"an ended session still answers {status}"


def a_verified_internal_address_signs_in(server, forger):
    """Directories (Active Directory's above all) give addresses on internal names such as corp.local."""
    # An owner adds such a person by address and gives her a role; then she signs in.
    status, added = server.api("POST", "/v1/principals", {"kind": "person", "email": "lin@corp.local", "displayName": "Lin"})
    assert status == 200 and added["id"] == "lin@corp.local", (status, added)
    status, _ = server.api("PUT", f"/v1/projects/{PROJECT}/members/lin@corp.local", {"role": "editor"})
    assert status == 200, status
    status, headers, body = request(start_sign_in(server, forger, "internal_domain"))
    assert status == 302 and headers["Location"] == "/console/", (status, body)
    secret = headers["Set-Cookie"].split(";")[0].split("=", 1)[1]
    status, _, body = request(server.base + "/v1/me", headers={"Cookie": f"rcs_session={secret}"})
    assert status == 200 and json.loads(body)["id"] == "lin@corp.local", (status, body)


def a_silent_provider_fails_sign_in_and_nothing_else(server, forger):
    callback = start_sign_in(server, forger, "hang")
    outcome = {}

    def finish():
        started = time.monotonic()
        outcome["status"], _, outcome["body"] = request(callback, timeout=30)
        outcome["seconds"] = time.monotonic() - started

    thread = threading.Thread(target=finish)
    thread.start()
    time.sleep(0.2)
    slowest = 0.0
    while thread.is_alive():
        for path in ["/healthz", "/v1/projects", "/auth/session"]:
            started = time.monotonic()
            status, _, _ = request(server.base + path, headers={"Authorization": f"Bearer {BOOT_TOKEN}"}, timeout=5)
            assert status == 200, f"{path}: {status}"
            slowest = max(slowest, time.monotonic() - started)
        time.sleep(0.05)
    thread.join()
    assert outcome["status"] == 502 and b"did not answer" in outcome["body"], outcome
    assert outcome["seconds"] < 6, f"the sign-in took {outcome['seconds']:.1f} s with a 2 s provider time-out"
    assert slowest < 0.5, f"another request took {slowest:.2f} s while the provider was silent"


def failed_sign_ins_are_in_the_audit_log(server, forger):
    status, log = server.api("GET", "/v1/auditLog?action=session.signIn&pageSize=100")
    assert status == 200, log
    outcomes = [entry["outcome"] for entry in log["entries"]]
    assert sum(o.startswith("failed 400") for o in outcomes) >= 6, outcomes
    assert sum(o.startswith("failed 502") for o in outcomes) == 1, outcomes
    assert outcomes.count("ok") == 2, outcomes  # grace's and lin's


# MARK: the browser against oidc-provider-mock

def browser_signs_in_publishes_and_signs_out(server, browser_path):
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=browser_path)
        page = browser.new_page()
        page.set_default_timeout(10000)
        problems = []
        page.on("pageerror", lambda error: problems.append(str(error)))
        page.goto(server.base + "/console/")
        page.get_by_role("link", name="Sign in with Mock provider").click()
        # The provider's own page: a predefined user.
        page.get_by_role("button", name="ada").click()
        expect(page.locator("#who")).to_have_text("Signed in as Ada Lovelace")
        page.get_by_label("New parameter key").fill("signed_in_flag")
        page.get_by_role("button", name="Add parameter").click()
        page.get_by_role("button", name="Review and publish…").click()
        page.get_by_label("Description of this version").fill("signed in")
        page.locator(".review").get_by_role("button", name="Publish version 1").click()
        expect(page.locator(".draft-bar .result")).to_have_text("Published version 1.")
        status, template = server.api("GET", f"/v1/projects/{PROJECT}/remoteConfig")
        assert status == 200 and template["version"]["updateUser"] == {"email": "ada@example.com"}, template["version"]
        assert template["version"]["updateOrigin"] == "CONSOLE", template["version"]
        cookies = {c["name"]: c["value"] for c in page.context.cookies()}
        secret = cookies["rcs_session"]
        # A call that changes something without the session's CSRF token is refused.
        status, _, _ = request(server.base + f"/v1/projects/{PROJECT}/remoteConfig", "PUT",
                               {"Cookie": f"rcs_session={secret}", "If-Match": "*", "Content-Type": "application/json"},
                               json.dumps({"parameters": {}}).encode())
        assert status == 403, status
        # Reloading keeps the session (the cookie); the console resumes it.
        page.reload()
        expect(page.locator("#who")).to_have_text("Signed in as Ada Lovelace")
        page.get_by_role("button", name="Sign out").click()
        expect(page.get_by_role("heading", name="Sign in")).to_be_visible()
        status, _, _ = request(server.base + "/v1/me", headers={"Cookie": f"rcs_session={secret}"})
        assert status == 401, f"the ended session still answers {status}"
        status, log = server.api("GET", "/v1/auditLog?actor=ada@example.com")
        actions = [entry["action"] for entry in log["entries"]]
        assert actions[:3] == ["session.signOut", "template.publish", "session.signIn"], actions
        assert not problems, problems
        browser.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--browser", default="/usr/bin/chromium")
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="oidc-e2e-")
    mock_port = free_port()
    mock_log = open(os.path.join(work, "mock.log"), "w")
    user = json.dumps({"sub": "ada", "email": "ada@example.com", "email_verified": True, "name": "Ada Lovelace"})
    mock = subprocess.Popen([sys.executable, "-m", "oidc_provider_mock", "--port", str(mock_port), "--user-claims", user],
                            stdout=mock_log, stderr=subprocess.STDOUT)
    forger = Forger()
    servers = []
    passed = failed = 0
    try:
        wait_until_ready(f"http://127.0.0.1:{mock_port}/.well-known/openid-configuration", mock)
        common = {"clientID": CLIENT_ID, "clientSecret": "s3cret",
                  "roleMappings": [{"emailDomain": "example.com", "roles": {PROJECT: "publisher"}}]}
        with_mock = Server(args.binary, work, "with-mock", {
            **common, "issuer": f"http://127.0.0.1:{mock_port}", "providerName": "Mock provider"})
        with_forger = Server(args.binary, work, "with-forger", {
            **common, "issuer": forger.base, "providerTimeoutSeconds": 2})
        servers = [with_mock, with_forger]
        checks = [
            lambda: browser_signs_in_publishes_and_signs_out(with_mock, args.browser),
            lambda: forged_tokens_are_refused(with_forger, forger),
            lambda: a_state_is_used_once(with_forger, forger),
            lambda: a_verified_internal_address_signs_in(with_forger, forger),
            lambda: a_silent_provider_fails_sign_in_and_nothing_else(with_forger, forger),
            lambda: failed_sign_ins_are_in_the_audit_log(with_forger, forger),
        ]
        names = ["browser_signs_in_publishes_and_signs_out", "forged_tokens_are_refused", "a_state_is_used_once",
                 "a_verified_internal_address_signs_in", "a_silent_provider_fails_sign_in_and_nothing_else", "failed_sign_ins_are_in_the_audit_log"]
        for name, check in zip(names, checks):
            started = time.monotonic()
            try:
                check()
                passed += 1
                print(f"ok   {name} ({time.monotonic() - started:.1f} s)", flush=True)
            except Exception:  # noqa: BLE001 (report each failure and go on: the checks are independent)
                failed += 1
                print(f"FAIL {name}", flush=True)
                traceback.print_exc()
    finally:
        for server in servers:
            server.stop()
        mock.terminate()
        mock.wait(timeout=10)
        mock_log.close()
        forger.server.shutdown()
        if failed:
            for log in sorted(pathlib.Path(work).glob("*/server.log")) + [pathlib.Path(work) / "mock.log"]:
                print(f"--- {log} (last 20 lines)")
                print("\n".join(log.read_text().splitlines()[-20:]))
    print(f"oidc e2e: {passed} passed, {failed} failed")
    return 0 if failed == 0 and passed == len(checks) else 1


if __name__ == "__main__":
    sys.exit(main())
