"""An OpenID provider that signs the ID tokens it is asked for: for the sign-in checks of
scripts/oidc_e2e.py, the sign-ins of scripts/bench-control-plane and the browser's sign-ins in
scripts/console_e2e.py."""
import base64
import http.server
import json
import socket
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding, rsa

CLIENT_ID = "rcs-console"


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


OPENER = urllib.request.build_opener(NoRedirect)


def request(url, method="GET", headers=None, body=None, timeout=15):
    """(status, headers, body bytes); redirects are not followed (a sign-in is a chain of them)."""
    req = urllib.request.Request(url, method=method, data=body, headers=headers or {})
    try:
        with OPENER.open(req, timeout=timeout) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class Forger:
    """An OpenID provider whose token endpoint answers with the ID token `mode` names."""

    def __init__(self, port=None):
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.other_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.mode = "good"
        self.nonce = ""
        # Who the next ID token names: its email and name claims.
        self.person = {"email": "grace@example.com", "name": "Grace"}
        self.port = port or free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        forger = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def answer(self, status, document):
                body = json.dumps(document).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self):
                if self.path.startswith("/authorize?"):
                    # A browser's sign-in: the provider agrees at once and sends it back with a code.
                    query = urllib.parse.parse_qs(urllib.parse.urlparse(self.path).query)
                    forger.nonce = query["nonce"][0]
                    back = query["redirect_uri"][0] + "?" + urllib.parse.urlencode({"code": "c-browser", "state": query["state"][0]})
                    self.send_response(302)
                    self.send_header("Location", back)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                elif self.path == "/.well-known/openid-configuration":
                    self.answer(200, {"issuer": forger.base, "authorization_endpoint": forger.base + "/authorize",
                                      "token_endpoint": forger.base + "/token", "jwks_uri": forger.base + "/jwks"})
                elif self.path == "/jwks":
                    numbers = forger.key.public_key().public_numbers()
                    self.answer(200, {"keys": [{"kty": "RSA", "kid": "k1", "use": "sig", "alg": "RS256",
                                                "n": b64url(numbers.n.to_bytes(256, "big")),
                                                "e": b64url(numbers.e.to_bytes(3, "big"))}]})
                else:
                    self.answer(404, {})

            def do_POST(self):
                self.rfile.read(int(self.headers.get("Content-Length", "0")))
                if forger.mode == "hang":
                    time.sleep(20)
                    return
                self.answer(200, {"access_token": "a", "token_type": "Bearer", "id_token": forger.token()})

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def token(self):
        now = int(time.time())
        claims = {"iss": self.base, "aud": CLIENT_ID, "sub": self.person["email"], **self.person,
                  "nonce": self.nonce, "iat": now, "exp": now + 300}
        header = {"alg": "RS256", "kid": "k1", "typ": "JWT"}
        key = self.key
        if self.mode == "wrong_audience":
            claims["aud"] = "someone-else"
        elif self.mode == "expired":
            claims["iat"], claims["exp"] = now - 7200, now - 3600
        elif self.mode == "wrong_nonce":
            claims["nonce"] = "not-this-sign-in"
        elif self.mode == "wrong_signature":
            key = self.other_key
        elif self.mode == "internal_domain":
            claims["email"], claims["email_verified"] = "lin@corp.local", True
        signing_input = (b64url(json.dumps(header).encode()) + "." + b64url(json.dumps(claims).encode())).encode()
        if self.mode == "alg_none":
            header["alg"] = "none"
            return b64url(json.dumps(header).encode()) + "." + b64url(json.dumps(claims).encode()) + "."
        signature = key.sign(signing_input, padding.PKCS1v15(), hashes.SHA256())
        return signing_input.decode() + "." + b64url(signature)
