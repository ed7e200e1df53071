# Shared by scripts/nginx-integration and scripts/nginx-nodes-integration; sourced, not run.
# The sourcing script sets `set -euo pipefail`, calls nginx_test_setup, fills LOGS and PIDS and
# traps EXIT to something that calls stop_started.

# nginx_test_setup NAME: enters the repository, installs nginx-light when missing, builds the
# debug server (a no-op after `swift test`) and sets NGINX, BIN, WORK (a fresh directory),
# PROXY_PORT and PROXY (the example project's API through nginx).
nginx_test_setup() {
    ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
    cd "$ROOT"
    if ! command -v nginx >/dev/null 2>&1 && [ ! -x /usr/sbin/nginx ]; then
        sh scripts/install-deps nginx-light >/dev/null
    fi
    NGINX=$(command -v nginx || echo /usr/sbin/nginx)
    swift build --product remote-config-server >/dev/null
    BIN=$(swift build --show-bin-path)/remote-config-server
    WORK=$(mktemp -d "/tmp/rcs-$1.XXXXXX")
    PROXY_PORT=$(free_port)
    PROXY="http://127.0.0.1:$PROXY_PORT/v1/projects/example-project"
}

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# "name:path" of the logs a failure shows, and the background processes to stop at exit.
LOGS=()
PIDS=()

# Stops nginx and every process in PIDS, waits for them and removes WORK.
stop_started() {
    [ -f "$WORK/nginx.pid" ] && kill "$(cat "$WORK/nginx.pid")" 2>/dev/null || true
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$WORK"
}

fail() {
    echo "FAIL: $*"
    for log in "${LOGS[@]}"; do
        echo "--- ${log%%:*} log"
        tail -20 "${log#*:}" 2>/dev/null
    done
    exit 1
}

# wait_until COMMAND...: tries COMMAND every 0.1 s until it succeeds, for at most 10 s.
wait_until() {
    for _ in $(seq 1 100); do
        "$@" && return 0
        sleep 0.1
    done
    "$@"
}

# start_nginx EXAMPLE SED-EXPRESSION...: the example config, pointed at this run's ports by the
# sed expressions, wrapped into a whole nginx.conf; checked, started and awaited.
start_nginx() {
    local example=$1 edits=() expression
    shift
    for expression in "$@"; do edits+=(-e "$expression"); done
    {
        echo "pid $WORK/nginx.pid; error_log $WORK/error.log warn; events {}"
        echo "http { access_log off; client_body_temp_path $WORK/body; proxy_temp_path $WORK/proxy;"
        sed "${edits[@]}" "$example"
        echo "}"
    } > "$WORK/nginx.conf"
    # An example whose lines moved on must not send this run to whatever listens on 80 or 808x.
    ! grep -Eq 'listen 80;|127\.0\.0\.1:808[0-9][ ;]' "$WORK/nginx.conf" || fail "$example: a port was not rewritten"
    "$NGINX" -t -q -c "$WORK/nginx.conf" || fail "nginx rejects $example"
    "$NGINX" -c "$WORK/nginx.conf"
    wait_until curl -sf -m 5 "http://127.0.0.1:$PROXY_PORT/healthz" -o /dev/null \
        || fail "the server is not reachable through nginx after 10 s"
}

ADMIN=(-H 'Authorization: Bearer dev-admin-token')

# publish VALUE: publishes welcome=VALUE through nginx; prints the status, the body goes to WORK/publish.json.
publish() {
    curl -s -m 10 -o "$WORK/publish.json" -w '%{http_code}' -X PUT "$PROXY/remoteConfig" "${ADMIN[@]}" -H 'If-Match: *' \
        -d "{\"parameters\":{\"welcome\":{\"defaultValue\":{\"value\":\"$1\"}}}}"
}

# fetch [BASE]: a client's fetch through nginx (or from BASE, a node's project URL), from a client
# address nginx forwards; prints the body.
fetch() {
    curl -s -m 10 -X POST "${1:-$PROXY}/namespaces/firebase:fetch" -H 'X-Goog-Api-Key: example-api-key' -H 'X-Forwarded-For: 198.51.100.7' \
        -d '{"appInstanceId":"nginx-test","appId":"1:123456789012:android:ab"}'
}

# open_stream FILE: a real-time stream through nginx that knows version 1, written to FILE for
# at most 60 s, in the background.
open_stream() {
    curl -sN -m 60 -X POST "$PROXY/namespaces/firebase:streamFetchInvalidations" -H 'X-Goog-Api-Key: example-api-key' \
        -d '{"lastKnownVersionNumber":"1"}' >"$1" 2>/dev/null &
    PIDS+=($!)
}

# invalidated VERSION FILE...: every FILE has received the invalidation for VERSION.
invalidated() {
    local version=$1 file
    shift
    for file in "$@"; do
        grep -q "\"latestTemplateVersionNumber\": \"$version\"" "$file" || return 1
    done
}
