"""The package installs with no network: `pip install ./sdk/python` uses the in-tree
build backend (tools/loci_build.py), which needs nothing from an index."""

import csv
import hashlib
import base64
import importlib.util
import io
import os
import subprocess
import sys
import tarfile
import tempfile
import unittest
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
SDK = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(SDK, "tools"))

import loci_build  # noqa: E402


def _load_backend(root):
    """tools/loci_build.py of another copy of the package (an unpacked sdist)."""
    spec = importlib.util.spec_from_file_location("loci_build_copy", os.path.join(root, "tools", "loci_build.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _has_pip():
    return subprocess.run([sys.executable, "-m", "pip", "--version"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0


class TestBuild(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="loci-build-")
        self.addCleanup(__import__("shutil").rmtree, self.tmp, True)

    def test_wheel(self):
        name = loci_build.build_wheel(self.tmp)
        self.assertEqual(name, "loci_memory-0.1.0-py3-none-any.whl")
        with zipfile.ZipFile(os.path.join(self.tmp, name)) as zf:
            names = zf.namelist()
            for want in ("loci/__init__.py", "loci/client.py", "loci/aio.py", "loci/errors.py", "loci/types.py", "loci/py.typed"):
                self.assertIn(want, names)
            self.assertFalse([n for n in names if "__pycache__" in n or n.endswith(".pyc")])
            meta = zf.read("loci_memory-0.1.0.dist-info/METADATA").decode()
            self.assertIn("Name: loci-memory\n", meta)
            self.assertIn("Requires-Python: >=3.9\n", meta)
            self.assertNotIn("Requires-Dist", meta)
            self.assertIn("Root-Is-Purelib: true", zf.read("loci_memory-0.1.0.dist-info/WHEEL").decode())
            # RECORD names every other file with its hash and size.
            rows = list(csv.reader(io.StringIO(zf.read("loci_memory-0.1.0.dist-info/RECORD").decode())))
            self.assertEqual(sorted(r[0] for r in rows), sorted(names))
            for path, digest, size in rows:
                if path.endswith("RECORD"):
                    self.assertEqual((digest, size), ("", ""))
                    continue
                data = zf.read(path)
                want = "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
                self.assertEqual((digest, int(size)), (want, len(data)), path)

    def test_sdist_builds_the_same_wheel(self):
        name = loci_build.build_sdist(self.tmp)
        with tarfile.open(os.path.join(self.tmp, name)) as tar:
            tar.extractall(self.tmp)
        root = os.path.join(self.tmp, "loci_memory-0.1.0")
        self.assertTrue(os.path.exists(os.path.join(root, "PKG-INFO")))
        out = os.path.join(self.tmp, "wheels")
        os.mkdir(out)
        from_sdist = _load_backend(root).build_wheel(out)
        os.mkdir(os.path.join(self.tmp, "direct"))
        direct = loci_build.build_wheel(os.path.join(self.tmp, "direct"))
        with open(os.path.join(out, from_sdist), "rb") as a, open(os.path.join(self.tmp, "direct", direct), "rb") as b:
            self.assertEqual(a.read(), b.read())

    def test_toml_reader(self):
        with open(os.path.join(SDK, "pyproject.toml"), encoding="utf-8") as f:
            text = f.read()
        mine = loci_build._parse_toml_subset(text)
        try:
            import tomllib
        except ImportError:
            self.assertEqual(mine["project"]["name"], "loci-memory")
        else:
            self.assertEqual(mine, tomllib.loads(text))

    @unittest.skipUnless(_has_pip(), "pip is not installed")
    def test_pip_install_without_an_index(self):
        target = os.path.join(self.tmp, "site")
        env = dict(os.environ, PIP_NO_INDEX="1", PIP_CONFIG_FILE=os.devnull, PIP_DISABLE_PIP_VERSION_CHECK="1")
        out = subprocess.run(
            [sys.executable, "-m", "pip", "install", "--no-index", "--quiet", "--target", target, SDK],
            cwd=self.tmp, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=300,
        )
        self.assertEqual(out.returncode, 0, out.stdout.decode())
        env = dict(os.environ, PYTHONPATH=target)
        got = subprocess.run(
            [sys.executable, "-c", "import loci; print(loci.__file__); print(loci.AsyncClient.__name__)"],
            cwd=self.tmp, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60,
        )
        self.assertEqual(got.returncode, 0, got.stderr.decode())
        path, cls = got.stdout.decode().split()
        self.assertTrue(path.startswith(target), path)
        self.assertEqual(cls, "AsyncClient")


if __name__ == "__main__":
    unittest.main()
