"""The demo's chat site: a saved chatgpt.com page served over HTTPS on loopback.

Chromium is told to resolve chatgpt.com to this server (and nothing else to anything),
and to accept this server's self-signed certificate by its public-key hash, so the
extension sees https://chatgpt.com/ exactly as on the real site and the browser can
fetch nothing from the internet. The page is a real saved ChatGPT conversation
(revivalstack/ai-chat-exporter, MIT; see tests/e2e/pages/README.md) with the in-page
simulator standing in for the site's scripts.
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import ssl
import threading
from functools import partial
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

SITE_HOSTS = ("chatgpt.com",)
ASSETS = resources.files(__package__)
BANNER = (
    "<div class=\"wb-demo-banner\"><b>Whiteboard demo</b> · a saved chatgpt.com page served from this machine; "
    "replies come from a local simulator, nothing leaves your computer. "
    "<b>1.</b> Select a sentence in an answer and click <i>Ask Whiteboard</i>. "
    "<b>2.</b> Type a question below and press Enter: the selection goes with it. "
    "<b>3.</b> Open the Whiteboard popup from the toolbar's puzzle icon.</div>"
)


def demo_page() -> str:
    main = (ASSETS / "chatgpt-2026-03.html").read_text(encoding="utf-8")
    return ("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>ChatGPT · Whiteboard demo</title>"
            "<link rel=\"stylesheet\" href=\"/__whiteboard_demo.css\"></head><body>"
            f"{BANNER}{main}<script src=\"/__whiteboard_sim.js\" data-site=\"chatgpt\" data-reply-ms=\"1200\"></script>"
            "</body></html>")


class Certificate:
    """A throwaway self-signed certificate for the demo hosts, written under `directory`."""

    def __init__(self, directory: Path):
        key = ec.generate_private_key(ec.SECP256R1())
        name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Whiteboard demo")])
        now = dt.datetime.now(dt.UTC)
        cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
                .serial_number(x509.random_serial_number())
                .not_valid_before(now - dt.timedelta(minutes=5)).not_valid_after(now + dt.timedelta(days=2))
                .add_extension(x509.SubjectAlternativeName([x509.DNSName(h) for h in SITE_HOSTS]), critical=False)
                .sign(key, hashes.SHA256()))
        self.cert_path = directory / "demo-cert.pem"
        self.key_path = directory / "demo-key.pem"
        self.cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
        self.key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                    serialization.NoEncryption()))
        self.key_path.chmod(0o600)
        spki = cert.public_key().public_bytes(serialization.Encoding.DER,
                                              serialization.PublicFormat.SubjectPublicKeyInfo)
        # What --ignore-certificate-errors-spki-list takes: base64 of the SPKI's SHA-256.
        self.spki_hash = base64.b64encode(hashlib.sha256(spki).digest()).decode()


class _Handler(BaseHTTPRequestHandler):
    def __init__(self, *args, files: dict[str, tuple[str, bytes]], **kwargs):
        self.files = files
        super().__init__(*args, **kwargs)

    def do_GET(self):
        path = self.path.split("?", 1)[0]
        found = self.files.get(path) or (self.files["/"] if path.startswith("/c/") else None)
        if found is None:
            self.send_error(404)
            return
        content_type, body = found
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):  # the demo's terminal stays quiet
        pass


class DemoServer:
    """HTTPS on 127.0.0.1 (a free port), serving the demo chat page until stop()."""

    def __init__(self, directory: Path):
        self.certificate = Certificate(directory)
        files = {
            "/": ("text/html; charset=utf-8", demo_page().encode()),
            "/__whiteboard_sim.js": ("text/javascript", (ASSETS / "simulator.js").read_bytes()),
            "/__whiteboard_demo.css": ("text/css", (ASSETS / "demo.css").read_bytes()),
        }
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), partial(_Handler, files=files))
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(self.certificate.cert_path, self.certificate.key_path)
        self.httpd.socket = context.wrap_socket(self.httpd.socket, server_side=True)
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, name="demo-server", daemon=True)

    def start(self) -> DemoServer:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def resolver_rules(self) -> str:
        """Chromium's --host-resolver-rules: the demo hosts to this server, every other name to nothing."""
        return ",".join([*(f"MAP {h} 127.0.0.1:{self.port}" for h in SITE_HOSTS), "MAP * ~NOTFOUND"])
