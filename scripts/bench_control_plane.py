#!/usr/bin/env python3
"""Fetch throughput with and without control-plane traffic beside it (run by
scripts/bench-control-plane, which builds the release server and lpgen).

One server (WORKERS workers, core 1) on an empty data directory, SQLite or a throw-away
PostgreSQL; the realistic template of scripts/bench-template.py; `lpgen rr` on core 0, 64
keep-alive connections, each a different client. Rounds alternate a quiet run with a run during
which a thread makes RATE audited admin calls a second (reads by a token without a role on the
project: each a 403 and an audit row) and, with --sign-ins, one console sign-in a second through
a provider this script runs (each a new session). Prints each run and the medians.

The server alone has core 1: this script, its callers and provider, and PostgreSQL run on core 0
beside lpgen, as they would run on other machines in production, so that the busy rounds measure
what the control plane costs the server rather than the processes that make it busy.
"""
import argparse
import json
import os
import pathlib
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(__file__))
from oidc_forger import CLIENT_ID, Forger, free_port  # noqa: E402
from oidc_forger import request as call  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent
PROJECT_NUMBER = "123456789012"
BODY = '{"appInstanceId":"client-{n}","appId":"1:123456789012:android:ab","appVersion":"2.{n}.0","countryCode":"US"}'


class ControlPlaneLoad:
    """RATE denied admin reads a second, and a sign-in a second when asked, until stopped."""

    def __init__(self, base, token, rate, forger):
        self.base, self.token, self.rate, self.forger = base, token, rate, forger
        self.stopping = threading.Event()
        self.counts = {}
        self.threads = [threading.Thread(target=self.denied_reads, daemon=True)]
        if forger is not None:
            self.threads.append(threading.Thread(target=self.sign_ins, daemon=True))

    def count(self, what):
        self.counts[what] = self.counts.get(what, 0) + 1

    def paced(self, per_second, step):
        next_time = time.monotonic()
        while not self.stopping.is_set():
            step()
            next_time += 1 / per_second
            self.stopping.wait(max(0, next_time - time.monotonic()))

    def denied_reads(self):
        headers = {"Authorization": f"Bearer {self.token}"}
        self.paced(self.rate, lambda: self.count(
            f"read {call(self.base + f'/v1/projects/{PROJECT_NUMBER}/remoteConfig', headers=headers)[0]}"))

    def sign_ins(self):
        def sign_in():
            status, headers, _ = call(self.base + "/auth/oidc/login?returnTo=/console/")
            if status != 302:
                return self.count(f"login {status}")
            query = urllib.parse.parse_qs(urllib.parse.urlparse(headers["Location"]).query)
            self.forger.nonce = query["nonce"][0]
            status, headers, _ = call(f"{self.base}/auth/oidc/callback?code=c&state={query['state'][0]}")
            signed_in = status == 302 and "rcs_session" in (headers.get("Set-Cookie") or "")
            self.count("sign-in" if signed_in else f"sign-in {status}")
        self.paced(1, sign_in)

    def __enter__(self):
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *_):
        self.stopping.set()
        for thread in self.threads:
            thread.join()


def quiet_wait(bench_dir):
    """The wait for a quiet host that the bench kit makes before each run."""
    subprocess.run([str(pathlib.Path(bench_dir) / "scripts/quiet-wait.sh"), "8", "120"], stdout=subprocess.DEVNULL)


def lpgen(bench_dir, url, pids, seconds):
    """(requests/s, p99 ms) of one lpgen rr run on core 0."""
    out = subprocess.run(
        ["taskset", "-c", "0", "timeout", "120", "./lpgen", "rr", "-u", url, "-X", "POST", "-b", BODY, "-c", "64",
         "-t", "1", "-d", str(seconds), "--warmup", "2", "--quiet", "--json", "--pids", pids],
        cwd=bench_dir, capture_output=True, text=True).stdout
    line = next((line for line in out.splitlines() if line.startswith("JSON")), None)
    if line is None:
        raise RuntimeError(f"lpgen printed no result: {out[-500:]}")
    rps = float(re.search(r'"rps":([0-9.]+)', line).group(1))
    p99 = float(re.search(r'"p99_ms":([0-9.]+)', line).group(1))
    return rps, p99


def wait_until_ready(url, process):
    for _ in range(300):
        if process.poll() is not None:
            raise RuntimeError(f"the server exited with {process.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=1):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"{url} did not become ready")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--bench-dir", required=True)
    parser.add_argument("--engine", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=int, default=8)
    parser.add_argument("--rate", type=float, default=20)
    parser.add_argument("--sign-ins", action="store_true", help="also one console sign-in a second")
    args = parser.parse_args()
    os.sched_setaffinity(0, {0})  # this script, and PostgreSQL started from it, beside lpgen

    work = pathlib.Path(tempfile.mkdtemp(prefix="rcs-control-plane."))
    os.chmod(work, 0o755)  # a PostgreSQL cluster in it runs as the postgres user
    forger = Forger() if args.sign_ins else None
    config = json.loads((ROOT / "config/remote-config.json").read_text())
    config["fetch"]["throttleBurst"] = 0
    config["http"] = {"accessLog": False}
    if forger is not None:
        project = config["projects"][0]["id"]
        config["signIn"] = {"issuer": forger.base, "clientID": CLIENT_ID, "clientSecret": "s3cret",
                            "roleMappings": [{"emailDomain": "example.com", "roles": {project: "viewer"}}]}
    (work / "config.json").write_text(json.dumps(config))
    environment = dict(os.environ, RCS_LOG_LEVEL="warning")
    cluster = work / "pg"
    if args.engine == "postgres":
        environment["RCS_DATABASE_URL"] = subprocess.run(
            ["sh", str(ROOT / "scripts/postgres-test-server"), "start", str(cluster)],
            capture_output=True, text=True, check=True).stdout.strip()
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    log = open(work / "server.log", "w")
    server = subprocess.Popen(
        ["taskset", "-c", "1", args.binary, "--config", str(work / "config.json"), "--port", str(port),
         "--data-dir", str(work / "data"), "--workers", str(args.workers)],
        stdout=log, stderr=subprocess.STDOUT, env=environment)
    try:
        wait_until_ready(base + "/readyz", server)
        admin = {"Authorization": "Bearer dev-admin-token", "Content-Type": "application/json"}
        template = subprocess.run([sys.executable, str(ROOT / "scripts/bench-template.py")],
                                  capture_output=True, check=True).stdout
        status, _, body = call(f"{base}/v1/projects/{PROJECT_NUMBER}/remoteConfig", "PUT",
                               {**admin, "If-Match": "*"}, template)
        assert status == 200, f"publish: {status} {body[:200]}"
        status, _, body = call(base + "/v1/principals", "POST", admin,
                               json.dumps({"id": "svc-bench", "displayName": "bench"}).encode())
        assert status == 200, f"principal: {status} {body[:200]}"
        status, _, body = call(base + "/v1/tokens", "POST", admin,
                               json.dumps({"principal": "svc-bench", "name": "bench"}).encode())
        assert status == 200, f"token: {status} {body[:200]}"
        token = json.loads(body)["token"]
        pids = subprocess.run(["pgrep", "-d,", "-f", f"^{args.binary} --config {work}/config.json"],
                              capture_output=True, text=True).stdout.strip()
        url = f"{base}/v1/projects/{PROJECT_NUMBER}/namespaces/firebase:fetch?key=example-api-key"
        cpu = subprocess.run(["sh", "-c", "grep -m1 'model name' /proc/cpuinfo | cut -d: -f2"],
                             capture_output=True, text=True).stdout.strip()
        load = f"{args.rate:g} denied admin reads/s" + (" + 1 sign-in/s" if forger else "")
        print(f"# {cpu}; {args.engine}, {args.workers} workers; quiet vs {load}", flush=True)
        quiet, loaded = [], []
        for round_number in range(1, args.rounds + 1):
            quiet_wait(args.bench_dir)
            quiet.append(lpgen(args.bench_dir, url, pids, args.seconds))
            quiet_wait(args.bench_dir)
            with ControlPlaneLoad(base, token, args.rate, forger) as control:
                loaded.append(lpgen(args.bench_dir, url, pids, args.seconds))
            calls = ", ".join(f"{what} x{count}" for what, count in sorted(control.counts.items()))
            print(f"round {round_number}: quiet {quiet[-1][0]:.0f} req/s (p99 {quiet[-1][1]:.1f} ms); "
                  f"with control plane {loaded[-1][0]:.0f} req/s (p99 {loaded[-1][1]:.1f} ms); {calls}", flush=True)
        quiet_rps = statistics.median(r for r, _ in quiet)
        loaded_rps = statistics.median(r for r, _ in loaded)
        print(f"SUMMARY engine={args.engine} workers={args.workers} rounds={args.rounds} "
              f"quiet_rps_median={quiet_rps:.0f} loaded_rps_median={loaded_rps:.0f} "
              f"quiet_p99_median={statistics.median(p for _, p in quiet):.1f} "
              f"loaded_p99_median={statistics.median(p for _, p in loaded):.1f} ratio={loaded_rps / quiet_rps:.2f}")
    finally:
        server.terminate()
        server.wait(timeout=30)
        log.close()
        if forger is not None:
            forger.server.shutdown()
        if args.engine == "postgres":
            subprocess.run(["sh", str(ROOT / "scripts/postgres-test-server"), "stop", str(cluster)],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


if __name__ == "__main__":
    main()
