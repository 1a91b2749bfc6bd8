"""A real `loci serve` for the tests: built once, started on a free port with a
temporary database, stopped and removed afterwards.

Set LOCI_BIN to a built binary to skip the build (`make sdk-test` does).
"""

import atexit
import os
import shutil
import subprocess
import tempfile
import time
import urllib.request

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))

_built = None


def loci_binary():
    """The loci binary: $LOCI_BIN, else built once from this checkout."""
    global _built
    if os.environ.get("LOCI_BIN"):
        return os.environ["LOCI_BIN"]
    if _built is None:
        d = tempfile.mkdtemp(prefix="loci-sdk-bin-")
        atexit.register(shutil.rmtree, d, True)
        path = os.path.join(d, "loci")
        subprocess.run(["go", "build", "-o", path, "./cmd/loci"], cwd=REPO, check=True)
        _built = path
    return _built


class Server:
    """One `loci serve` process on 127.0.0.1, port chosen by the system, on
    a fresh SQLite file. Call keys() before start() to create API keys (which
    turns authentication on)."""

    def __init__(self, *flags):
        self.flags = list(flags)
        self.dir = tempfile.mkdtemp(prefix="loci-sdk-")
        self.db = os.path.join(self.dir, "loci.db")
        self.proc = None
        self.url = None

    def run(self, *args):
        """Run a loci verb on this server's database; its stdout."""
        out = subprocess.run(
            [loci_binary()] + list(args) + ["--db", self.db],
            check=True,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=self._env(),
        )
        return out.stdout.decode().strip()

    def create_key(self, role, agent=None):
        """A new API key with role (bound to agent if given)."""
        args = ["keys", "create", "--role", role]
        if agent:
            args += ["--agent", agent]
        return self.run(*args)

    def start(self, addr="127.0.0.1:0"):
        out_path = os.path.join(self.dir, "stdout")
        self.log_path = os.path.join(self.dir, "stderr")
        with open(out_path, "wb") as out, open(self.log_path, "wb") as log:
            self.proc = subprocess.Popen(
                [loci_binary(), "serve", "--addr", addr, "--db", self.db] + self.flags,
                stdout=out,
                stderr=log,
                stdin=subprocess.DEVNULL,
                env=self._env(),
            )
        deadline = time.monotonic() + 120
        while self.url is None:
            with open(out_path) as f:
                for line in f:
                    if line.startswith("loci listening on "):
                        self.url = line.split()[-1]
            if self.url is None:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("loci serve did not start:\n" + self.log())
                time.sleep(0.05)
        while True:
            try:
                with urllib.request.urlopen(self.url + "/readyz", timeout=5) as r:
                    if r.status == 200:
                        return self
            except OSError:
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("loci serve is not ready:\n" + self.log())
            time.sleep(0.05)

    def log(self):
        try:
            with open(self.log_path, errors="replace") as f:
                return f.read()
        except OSError:
            return ""

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None
        shutil.rmtree(self.dir, ignore_errors=True)

    def _env(self):
        env = dict(os.environ)
        for k in ("LOCI_DB", "LOCI_EMBEDDER", "LOCI_EMBED_URL"):
            env.pop(k, None)
        return env
