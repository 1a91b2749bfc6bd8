"""A fault-injecting HTTP proxy in front of a real loci server, for the retry
tests: loci cannot be made to answer 503 or 507 or drop a connection on
demand, so the proxy does it for the requests it is told to, and forwards the
rest.
"""

import http.server
import threading
import urllib.error
import urllib.request

UNAVAILABLE = b'{"success":false,"error":"storage unreachable","code":"unavailable"}\n'
STORAGE_FULL = b'{"success":false,"error":"storage full: the disk has no space left","code":"storage_full"}\n'


class FaultProxy:
    """Forwards to upstream; each entry of faults ("503", "507" or "drop") is used
    up by one request, in order. seen lists every (method, path) received."""

    def __init__(self, upstream):
        self.upstream = upstream
        self.faults = []
        self.seen = []
        self.lock = threading.Lock()
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def handle_one(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else None
                with proxy.lock:
                    proxy.seen.append((self.command, self.path))
                    fault = proxy.faults.pop(0) if proxy.faults else None
                if fault == "drop":
                    self.close_connection = True
                    return
                if fault in ("503", "507"):
                    payload = UNAVAILABLE if fault == "503" else STORAGE_FULL
                    self.send_response(int(fault))
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Retry-After", "0")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                    return
                headers = {k: v for k, v in self.headers.items() if k.lower() in ("authorization", "content-type")}
                req = urllib.request.Request(proxy.upstream + self.path, data=body, headers=headers, method=self.command)
                try:
                    with urllib.request.urlopen(req, timeout=30) as r:
                        status, rheaders, payload = r.status, r.headers, r.read()
                except urllib.error.HTTPError as e:
                    status, rheaders, payload = e.code, e.headers, e.read()
                self.send_response(status)
                for k, v in rheaders.items():
                    if k.lower() not in ("content-length", "connection", "transfer-encoding", "date", "server"):
                        self.send_header(k, v)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            do_GET = do_PUT = do_POST = do_DELETE = handle_one

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = "http://127.0.0.1:%d" % self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def inject(self, *faults):
        with self.lock:
            self.faults = list(faults)
            self.seen = []

    def close(self):
        self.server.shutdown()
        self.server.server_close()
