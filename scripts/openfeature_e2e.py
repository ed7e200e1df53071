#!/usr/bin/env python3
"""OpenFeature clients end to end (run by scripts/openfeature-e2e, which builds the server).

A server with 2 workers and an empty data directory, then:

* docs/openfeature.md's Python example, taken from the document with its template, run as is
  with openfeature-sdk and openfeature-provider-ofrep (PyPI): its output is checked;
* the same SDK and provider resolve boolean, string, integer, float and object flags; a context
  that matches a condition gets its value, reason and variant; a missing flag gets the default
  with FLAG_NOT_FOUND; an in-app default gets the code's default;
* a client-side provider's polling loop (the Python provider evaluates flag by flag, so this is
  the static-context guideline's loop, with If-None-Match): 304 until a publish, then the new
  values; and its event stream tells of that publish.
"""
import argparse
import json
import os
import pathlib
import re
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse

import requests
from openfeature import api
from openfeature.contrib.provider.ofrep import OFREPProvider
from openfeature.evaluation_context import EvaluationContext
from openfeature.exception import ErrorCode

ROOT = pathlib.Path(__file__).resolve().parent.parent
API_KEY = "example-api-key"
ADMIN = {"Authorization": "Bearer dev-admin-token"}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def block_after(marker, text):
    """The fenced block that follows `<!-- openfeature-e2e: marker -->` in the document."""
    found = re.search(r"<!-- openfeature-e2e: " + marker + r" -->\s*```\w*\n(.*?)```", text, re.S)
    if not found:
        raise SystemExit(f"openfeature-e2e: docs/openfeature.md has no '{marker}' block")
    return found.group(1)


def start_server(binary, work):
    port = free_port()
    log = open(os.path.join(work, "server.log"), "w")
    server = subprocess.Popen([binary, "--config", str(ROOT / "config/remote-config.json"), "--host", "127.0.0.1",
                               "--port", str(port), "--data-dir", os.path.join(work, "data"), "--workers", "2"],
                              stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    for _ in range(200):
        try:
            if requests.get(base + "/readyz", timeout=1).status_code == 200:
                return server, base
        except requests.RequestException:
            pass
        if server.poll() is not None:
            break
        time.sleep(0.05)
    server.kill()
    raise SystemExit("openfeature-e2e: the server did not become ready:\n" + open(log.name).read())


def publish(base, template):
    response = requests.put(base + "/v1/projects/example-project/remoteConfig", data=template,
                            headers={**ADMIN, "If-Match": "*"}, timeout=10)
    assert response.status_code == 200, response.text
    return int(response.headers["ETag"].rsplit("-", 1)[1])


def check(condition, message):
    if not condition:
        raise AssertionError(message)
    print("ok:", message)


def run_document_example(base, example):
    """The document's example, as a reader would run it."""
    result = subprocess.run([sys.executable, "-c", example], env={**os.environ, "RCS_URL": base, "RCS_API_KEY": API_KEY},
                            capture_output=True, text=True, timeout=60)
    check(result.returncode == 0, f"the document's example runs ({result.stderr.strip()[-500:]})")
    lines = result.stdout.strip().splitlines()
    check(lines == ["dark_mode True TARGETING_MATCH canada", "greeting hello", "max_items 10", "ratio 0.25",
                    "layout {'columns': 2}"], f"the document's example prints what it says: {lines}")


def resolve_with_the_sdk(base):
    api.set_provider(OFREPProvider(base, headers_factory=lambda: {"X-API-Key": API_KEY}))
    client = api.get_client()
    canadian = EvaluationContext(targeting_key="sdk-1", attributes={"country": "CA"})
    french = EvaluationContext(targeting_key="sdk-2", attributes={"country": "FR"})
    matched = client.get_boolean_details("dark_mode", False, canadian)
    check((matched.value, matched.reason, matched.variant) == (True, "TARGETING_MATCH", "canada"),
          f"a matching context gets the condition's value, reason and variant: {matched}")
    default = client.get_boolean_details("dark_mode", True, french)
    check((default.value, default.reason, default.variant) == (False, "STATIC", "default"),
          f"another context gets the default value: {default}")
    check(client.get_string_value("greeting", "hi", french) == "hello", "string flag")
    integer = client.get_integer_details("max_items", 5, french)
    check(integer.value == 10 and integer.error_code is None, f"integer flag: {integer}")
    number = client.get_float_details("ratio", 0.5, french)
    check(number.value == 0.25 and number.error_code is None, f"float flag: {number}")
    check(client.get_object_value("layout", {}, french) == {"columns": 2}, "object flag")
    missing = client.get_string_details("no_such_flag", "fallback", french)
    check(missing.value == "fallback" and missing.error_code == ErrorCode.FLAG_NOT_FOUND,
          f"a missing flag gets the default with FLAG_NOT_FOUND: {missing}")
    local = client.get_string_details("local_only", "from code", french)
    check(local.value == "from code" and local.error_code is None, f"useInAppDefault gets the code's default: {local}")


def poll_and_listen(base, template):
    """The static-context provider's loop: bulk with If-None-Match, and the listed event stream."""
    session = requests.Session()
    session.headers["X-API-Key"] = API_KEY
    body = {"context": {"targetingKey": "web-1", "country": "CA"}}
    first = session.post(base + "/ofrep/v1/evaluate/flags", json=body, timeout=10)
    check(first.status_code == 200 and first.headers.get("ETag"), "the bulk answer has an ETag")
    answer = first.json()
    stream_uri = answer["eventStreams"][0]["endpoint"]["requestUri"]
    events = session.get(base + stream_uri, stream=True, timeout=30, headers={"Accept": "text/event-stream"})
    check(events.status_code == 200 and events.headers["Content-Type"] == "text/event-stream", "the listed event stream opens")
    etag = first.headers["ETag"]
    for _ in range(5):
        again = session.post(base + "/ofrep/v1/evaluate/flags", json=body, headers={"If-None-Match": etag}, timeout=10)
        check(again.status_code == 304 and again.content == b"", "repeated bulk calls get 304")
    changed = json.loads(template)
    changed["parameters"]["greeting"]["defaultValue"]["value"] = "bonjour"
    version = publish(base, json.dumps(changed))
    lines = events.iter_lines(decode_unicode=True)
    data = None
    for line in lines:
        # `data:` with or without a space after the colon (WHATWG HTML §9.2.6).
        if line.startswith("data:"):
            value = line[len("data:"):]
            data = json.loads(value[1:] if value.startswith(" ") else value)
            break
    check(data is not None and data["type"] == "refetchEvaluation" and data["etag"] == str(version),
          f"the event stream tells of the publish: {data}")
    events.close()
    query = urllib.parse.urlencode({"flagConfigEtag": data["etag"], "flagConfigLastModified": data["lastModified"]})
    after = session.post(base + "/ofrep/v1/evaluate/flags?" + query, json=body, headers={"If-None-Match": etag}, timeout=10)
    check(after.status_code == 200 and after.headers["ETag"] != etag, "after the publish: 200 with a new ETag")
    flags = {flag["key"]: flag for flag in after.json()["flags"]}
    check(flags["greeting"]["value"] == "bonjour" and after.json()["metadata"]["version"] == str(version),
          "the new values and version")
    last = session.post(base + "/ofrep/v1/evaluate/flags", json=body, headers={"If-None-Match": after.headers["ETag"]}, timeout=10)
    check(last.status_code == 304, "then 304 again")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    args = parser.parse_args()
    document = (ROOT / "docs/openfeature.md").read_text()
    template = block_after("template", document)
    with_local = json.loads(template)
    with_local["parameters"]["local_only"] = {"defaultValue": {"useInAppDefault": True}, "valueType": "STRING"}
    template = json.dumps(with_local)
    with tempfile.TemporaryDirectory() as work:
        server, base = start_server(args.binary, work)
        try:
            publish(base, template)
            run_document_example(base, block_after("example", document))
            resolve_with_the_sdk(base)
            poll_and_listen(base, template)
        except Exception:
            print(open(os.path.join(work, "server.log")).read()[-3000:], file=sys.stderr)
            raise
        finally:
            server.terminate()
            server.wait(timeout=30)
    print("openfeature-e2e: every check passed")


if __name__ == "__main__":
    main()
