#!/usr/bin/env python3
"""Webhooks end to end (run by scripts/webhooks-e2e, which builds the server).

A server with 2 workers and an empty data directory sends to a receiver this script runs, which
checks every request with the `standardwebhooks` package from PyPI (and once by hand, with
hmac): a publish signed with the first secret; after a rotation with an overlap, a rollback
signed with both the old and the new secret; after a rotation without overlap, a test event
signed with the newest only; a redelivery sends the same message again.
"""
import argparse
import base64
import hashlib
import hmac
import http.server
import json
import pathlib
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

from standardwebhooks.webhooks import Webhook, WebhookVerificationError

PROJECT = "example-project"
TOKEN = "boot-token"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Receiver:
    """Keeps every request (headers, body) and answers 200."""

    def __init__(self):
        self.requests = []
        self.arrived = threading.Condition()
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                with receiver.arrived:
                    receiver.requests.append(({k.lower(): v for k, v in self.headers.items()}, body))
                    receiver.arrived.notify_all()
                self.send_response(200)
                self.end_headers()
                self.wfile.write(b"received")

            def log_message(self, *args):
                pass

        self.port = free_port()
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.port}/hooks/remote-config"

    def request(self, number, seconds=20):
        """The `number`th request (from 1), once it arrived."""
        with self.arrived:
            if not self.arrived.wait_for(lambda: len(self.requests) >= number, timeout=seconds):
                raise AssertionError(f"request {number} did not arrive; got {len(self.requests)}")
            return self.requests[number - 1]


class Server:
    def __init__(self, binary, work):
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        directory = pathlib.Path(work)
        config = {
            "adminTokens": [{"name": "boot", "token": TOKEN}],
            "projects": [{"id": PROJECT, "number": "123456789012", "apiKeys": ["key"]}],
            "webhooks": {"allowPrivateAddresses": True, "retryBaseSeconds": 0.2, "pollIntervalSeconds": 0.2},
        }
        (directory / "config.json").write_text(json.dumps(config))
        self.log = open(directory / "server.log", "w")
        self.process = subprocess.Popen(
            [binary, "--config", str(directory / "config.json"), "--host", "127.0.0.1", "--port", str(self.port),
             "--data-dir", str(directory / "data"), "--workers", "2"], stdout=self.log, stderr=subprocess.STDOUT)
        for _ in range(150):
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited with {self.process.returncode}")
            try:
                with urllib.request.urlopen(self.base + "/readyz", timeout=1):
                    return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("the server did not become ready")

    def api(self, method, path, body=None, headers=None):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, method=method, data=data, headers={
            "Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json", **(headers or {})})
        try:
            with urllib.request.urlopen(request, timeout=15) as response:
                return response.status, json.loads(response.read() or b"null")
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"null")

    def publish(self, value):
        status, _ = self.api("PUT", f"/v1/projects/{PROJECT}/remoteConfig",
                             {"parameters": {"greeting": {"defaultValue": {"value": value}}}}, {"If-Match": "*"})
        assert status == 200, status

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=15)
        self.log.close()


def verifies(secret, request):
    headers, body = request
    try:
        Webhook(secret).verify(body, headers)
        return True
    except WebhookVerificationError:
        return False


def verify_by_hand(secret, request):
    """docs/webhooks.md, "Verifying by hand"."""
    headers, body = request
    key = base64.b64decode(secret.removeprefix("whsec_"))
    signed = f"{headers['webhook-id']}.{headers['webhook-timestamp']}.".encode() + body
    expected = "v1," + base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
    assert expected in headers["webhook-signature"].split(" "), "the signature does not match by hand"
    assert abs(time.time() - int(headers["webhook-timestamp"])) < 300


def check(server, receiver):
    status, hook = server.api("POST", f"/v1/projects/{PROJECT}/webhooks", {
        "url": receiver.url, "events": ["template.publish", "template.rollback"], "description": "e2e"})
    assert status == 200, hook
    first_secret = hook["secret"]
    server.publish("one")
    server.publish("two")
    publish = receiver.request(2)
    assert verifies(first_secret, publish), "a publish verifies with the endpoint's secret"
    verify_by_hand(first_secret, publish)
    payload = json.loads(publish[1])
    assert payload["type"] == "template.publish" and payload["versionNumber"] == "2", payload
    assert payload["diff"]["diff"]["changedParameters"][0]["key"] == "greeting", payload["diff"]
    assert payload["id"] == publish[0]["webhook-id"]
    print("ok   a publish is signed and carries its diff", flush=True)

    status, rotated = server.api("POST", f"/v1/projects/{PROJECT}/webhooks/{hook['id']}:rotateSecret",
                                 {"overlapSeconds": 3600})
    assert status == 200 and rotated["secret"] != first_secret, rotated
    second_secret = rotated["secret"]
    status, _ = server.api("POST", f"/v1/projects/{PROJECT}/remoteConfig:rollback", {"versionNumber": 1})
    assert status == 200
    rollback = receiver.request(3)
    assert json.loads(rollback[1])["type"] == "template.rollback"
    assert verifies(second_secret, rollback) and verifies(first_secret, rollback), "both secrets during the overlap"
    print("ok   during a rotation's overlap both secrets verify", flush=True)

    status, rotated = server.api("POST", f"/v1/projects/{PROJECT}/webhooks/{hook['id']}:rotateSecret",
                                 {"overlapSeconds": 0})
    third_secret = rotated["secret"]
    status, test = server.api("POST", f"/v1/projects/{PROJECT}/webhooks/{hook['id']}:test")
    assert status == 200, test
    tested = receiver.request(4)
    assert json.loads(tested[1])["type"] == "test" and tested[0]["webhook-id"] == test["eventId"]
    assert verifies(third_secret, tested) and not verifies(second_secret, tested), "only the newest after the overlap"
    print("ok   after a rotation without overlap only the new secret verifies", flush=True)

    deliveries = []
    for _ in range(100):
        status, log = server.api("GET", f"/v1/projects/{PROJECT}/webhooks/{hook['id']}/deliveries")
        deliveries = log["deliveries"]
        if len(deliveries) == 4 and all(d["state"] == "delivered" for d in deliveries):
            break
        time.sleep(0.05)
    assert [d["eventType"] for d in deliveries] == ["test", "template.rollback", "template.publish", "template.publish"]
    assert all(d["attempts"][-1]["status"] == 200 for d in deliveries), deliveries
    oldest = deliveries[-1]
    status, _ = server.api("POST", f"/v1/projects/{PROJECT}/webhooks/{hook['id']}/deliveries/{oldest['id']}:redeliver")
    assert status == 200
    again = receiver.request(5)
    first = receiver.request(1)
    assert again[0]["webhook-id"] == first[0]["webhook-id"] and again[1] == first[1], "a redelivery sends the same message"
    assert verifies(third_secret, again)
    print("ok   the delivery log lists every attempt and a redelivery resends the message", flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="webhooks-e2e-")
    receiver = Receiver()
    server = Server(args.binary, work)
    try:
        check(server, receiver)
        ok = True
    except Exception:  # noqa: BLE001 (print the log with the failure)
        import traceback
        traceback.print_exc()
        ok = False
    finally:
        server.stop()
        receiver.server.shutdown()
    if not ok:
        print("\n".join((pathlib.Path(work) / "server.log").read_text().splitlines()[-30:]))
    print(f"webhooks e2e: {'passed' if ok else 'FAILED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
