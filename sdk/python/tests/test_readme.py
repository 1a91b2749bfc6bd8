"""README.md's Python example runs as written against a real server and prints
what its comments say; loci/types.py matches the OpenAPI document."""

import json
import os
import re
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SDK = os.path.dirname(HERE)
sys.path.insert(0, SDK)
sys.path.insert(0, os.path.join(SDK, "tools"))

import gen_aio  # noqa: E402
import gen_types  # noqa: E402
from server import REPO, Server  # noqa: E402


def readme_example(heading, lang):
    """The first ```lang block after the line `heading` in README.md."""
    with open(os.path.join(REPO, "README.md"), encoding="utf-8") as f:
        text = f.read()
    start = text.index("\n" + heading + "\n")
    m = re.compile(r"^```" + re.escape(lang) + r"\n(.*?)^```$", re.S | re.M).search(text, start)
    if m is None:
        raise AssertionError("no ```%s block after %r in README.md" % (lang, heading))
    return m.group(1)


def expected_output(code, call):
    """What the example says it prints: the trailing comment of each `call(` line."""
    return [m.group(1) for m in re.finditer(r"^\s*" + re.escape(call) + r"\(.*?#\s*(.+)$", code, re.M)]


class TestReadme(unittest.TestCase):
    def test_python_example(self):
        code = readme_example("### Python", "python")
        want = expected_output(code, "print")
        self.assertGreaterEqual(len(want), 4, "the example's print comments were not found")
        server = Server().start()
        self.addCleanup(server.stop)
        env = dict(os.environ, LOCI_URL=server.url, PYTHONPATH=SDK)
        env.pop("LOCI_API_KEY", None)
        out = subprocess.run(
            [sys.executable, "-c", code], env=env, cwd=server.dir, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120
        )
        self.assertEqual(out.returncode, 0, out.stderr.decode())
        lines = out.stdout.decode().splitlines()
        at = 0
        for w in want:
            self.assertIn(w, lines[at:], "README promises %r, in this order; the example printed:\n%s" % (w, "\n".join(lines)))
            at = lines.index(w, at) + 1


class TestTypes(unittest.TestCase):
    def test_types_up_to_date(self):
        with open(gen_types.OUT, encoding="utf-8") as f:
            committed = f.read()
        self.assertTrue(
            committed == gen_types.generate(),
            "sdk/python/loci/types.py is stale: run python3 tools/gen_types.py in sdk/python",
        )

    def test_aio_up_to_date(self):
        with open(gen_aio.OUT, encoding="utf-8") as f:
            committed = f.read()
        self.assertTrue(
            committed == gen_aio.generate(),
            "sdk/python/loci/aio.py is stale: run python3 tools/gen_aio.py in sdk/python",
        )

    def test_every_operation_has_a_method(self):
        # Each JSON operation of the document has its response type, and the
        # client annotates a method with it.
        import loci.client
        import loci.types

        with open(gen_types.SPEC, encoding="utf-8") as f:
            doc = json.load(f)
        with open(loci.client.__file__, encoding="utf-8") as f:
            source = f.read()
        missing = []
        for path, ops in doc["paths"].items():
            for method, op in ops.items():
                if op["operationId"] in ("openapi", "metrics", "agentPrompt", "export"):
                    continue  # not JSON: prompt() and export() answer text
                name = gen_types.pascal(op["operationId"]) + "Response"
                if not hasattr(loci.types, name) or ("t.%s" % name) not in source:
                    missing.append("%s %s (%s)" % (method.upper(), path, name))
        self.assertEqual(missing, [], "operations without a client method")


if __name__ == "__main__":
    unittest.main()
