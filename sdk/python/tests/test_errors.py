"""Each error class, from a real server where loci can produce the code, and the
retries: on 429 from a rate-limited server, on 503 and dropped connections
through a fault-injecting proxy, never for a non-idempotent request nor on a
507 (a full disk)."""

import logging
import os
import socket
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import loci  # noqa: E402
from faults import FaultProxy  # noqa: E402
from loci.errors import error_from_response  # noqa: E402
from server import Server  # noqa: E402

servers = {}


def setUpModule():
    open_server = Server()
    servers["open"] = open_server.start()
    auth = Server()
    servers["admin_key"] = auth.create_key("admin")
    servers["viewer_key"] = auth.create_key("viewer")
    servers["bound_key"] = auth.create_key("editor", agent="writer")
    servers["auth"] = auth.start()
    servers["limited"] = Server("--rate-limit", "1", "--rate-burst", "1").start()


def tearDownModule():
    for s in servers.values():
        if isinstance(s, Server):
            s.stop()


class TestErrorClasses(unittest.TestCase):
    """Every code of the envelope to its class, with the server's message."""

    def test_hierarchy(self):
        for cls in (
            loci.Invalid,
            loci.Unauthorized,
            loci.Forbidden,
            loci.NotFound,
            loci.Conflict,
            loci.TooLarge,
            loci.RateLimited,
            loci.ServerError,
            loci.Unavailable,
            loci.StorageFull,
            loci.TransportError,
        ):
            self.assertTrue(issubclass(cls, loci.LociError), cls)
        self.assertTrue(issubclass(loci.Unavailable, loci.ServerError))
        self.assertTrue(issubclass(loci.StorageFull, loci.ServerError))
        self.assertFalse(issubclass(loci.StorageFull, loci.Unavailable))

    def test_mapping(self):
        cases = [
            (400, "invalid", loci.Invalid),
            (401, "unauthorized", loci.Unauthorized),
            (403, "forbidden", loci.Forbidden),
            (404, "not_found", loci.NotFound),
            (409, "conflict", loci.Conflict),
            (413, "too_large", loci.TooLarge),
            (429, "rate_limited", loci.RateLimited),
            (500, "internal", loci.ServerError),
            (503, "unavailable", loci.Unavailable),
            (507, "storage_full", loci.StorageFull),
        ]
        for status, code, cls in cases:
            with self.subTest(code=code):
                body = ('{"success":false,"error":"the %s message","code":"%s"}' % (code, code)).encode()
                err = error_from_response(status, body, {"Retry-After": "7"})
                self.assertIs(type(err), cls)
                self.assertEqual((err.message, err.code, err.status, err.retry_after), ("the %s message" % code, code, status, 7.0))
                self.assertEqual(str(err), "the %s message (%d %s)" % (code, status, code))

    def test_mapping_without_envelope(self):
        cases = [
            (404, b"404 page not found", loci.NotFound, "404 page not found"),
            (405, b"Method Not Allowed", loci.Invalid, "Method Not Allowed"),
            (502, b"", loci.ServerError, "HTTP 502"),
            (503, b"<html>busy</html>", loci.Unavailable, "<html>busy</html>"),
            (507, b"Insufficient Storage", loci.StorageFull, "Insufficient Storage"),
            (418, b"{}", loci.LociError, "{}"),
            (500, b'{"success":false,"error":"new","code":"some_new_code"}', loci.ServerError, "new"),
        ]
        for status, body, cls, message in cases:
            with self.subTest(status=status):
                err = error_from_response(status, body, {})
                self.assertIs(type(err), cls)
                self.assertEqual(err.message, message)
                self.assertIsNone(err.retry_after)

    def test_retry_after_date(self):
        err = error_from_response(503, b"", {"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"})
        self.assertEqual(err.retry_after, 0.0)  # a date in the past: no wait


class TestServerErrors(unittest.TestCase):
    """The codes a real server answers, each raised as its class with the server's message."""

    def setUp(self):
        self.client = loci.Client(servers["open"].url)

    def assertServerError(self, cm, cls, status):
        err = cm.exception
        self.assertIs(type(err), cls)
        self.assertEqual(err.status, status)
        self.assertEqual(err.code, cls.code)
        self.assertEqual(err.message, err.body["error"])
        self.assertTrue(err.message)

    def test_invalid(self):
        with self.assertRaises(loci.Invalid) as cm:
            self.client.remember("errs", "k", "   ")
        self.assertServerError(cm, loci.Invalid, 400)
        with self.assertRaises(loci.Invalid) as cm:
            self.client.recall_all("errs", limit=5000)
        self.assertIn("limit", cm.exception.message)

    def test_not_found(self):
        with self.assertRaises(loci.NotFound) as cm:
            self.client.recall("errs", "missing")
        self.assertServerError(cm, loci.NotFound, 404)
        self.assertEqual(cm.exception.message, "Memory not found")

    def test_conflict(self):
        self.client.set_block("errs", "state", "one")
        with self.assertRaises(loci.Conflict) as cm:
            self.client.set_block("errs", "state", "two", expected_version=7)
        self.assertServerError(cm, loci.Conflict, 409)

    def test_too_large(self):
        with self.assertRaises(loci.TooLarge) as cm:
            self.client.set_block("errs", "tiny", "x" * 11, limit=10)
        self.assertServerError(cm, loci.TooLarge, 413)

    def test_unauthorized(self):
        url = servers["auth"].url
        for key in (None, "loci_not_a_key"):
            with self.subTest(key=key):
                with self.assertRaises(loci.Unauthorized) as cm:
                    loci.Client(url, api_key=key).recall_all("writer")
                self.assertServerError(cm, loci.Unauthorized, 401)

    def test_forbidden(self):
        url = servers["auth"].url
        viewer = loci.Client(url, api_key=servers["viewer_key"])
        self.assertEqual(viewer.recall_all("writer")["count"], 0)
        with self.assertRaises(loci.Forbidden) as cm:
            viewer.remember("writer", "tone", "friendly")
        self.assertServerError(cm, loci.Forbidden, 403)
        self.assertIn("creator", cm.exception.message)
        bound = loci.Client(url, api_key=servers["bound_key"])
        bound.remember("writer", "tone", "friendly")
        with self.assertRaises(loci.Forbidden):
            bound.remember("reader", "tone", "friendly")
        admin = loci.Client(url, api_key=servers["admin_key"])
        self.assertEqual(admin.recall("writer", "tone")["value"], "friendly")

    def test_memories_under_keys(self):
        # The memories API keeps the roles and the agent binding: a viewer
        # reads but does not write; a key bound to an agent does not reach
        # another agent's memory by id (404, as if absent) nor add for it.
        url = servers["auth"].url
        admin = loci.Client(url, api_key=servers["admin_key"])
        theirs = admin.add_memory("Reader's runbook", agent_id="reader", kind="passage")
        mine = admin.add_memory("Writer's style guide", agent_id="writer", kind="passage")
        viewer = loci.Client(url, api_key=servers["viewer_key"])
        self.assertEqual(viewer.get_memory(theirs["id"])["content"], "Reader's runbook")
        with self.assertRaises(loci.Forbidden):
            viewer.add_memory("x", user_id="u")
        with self.assertRaises(loci.Forbidden):
            viewer.update_memory(theirs["id"], content="x")
        bound = loci.Client(url, api_key=servers["bound_key"])
        self.assertEqual(bound.get_memory(mine["id"])["agent_id"], "writer")
        for call in (
            lambda: bound.get_memory(theirs["id"]),
            lambda: bound.update_memory(theirs["id"], content="mine now"),
            lambda: bound.memory_history(theirs["id"]),
            lambda: bound.delete_memory(theirs["id"]),
            lambda: bound.batch_memories(delete=[mine["id"], theirs["id"]]),
        ):
            with self.assertRaises(loci.NotFound):
                call()
        with self.assertRaises(loci.Forbidden):
            bound.add_memory("x", agent_id="reader", kind="passage")
        # Nothing of the refused batch was applied.
        self.assertEqual(admin.get_memory(mine["id"])["content"], "Writer's style guide")
        self.assertEqual(admin.get_memory(theirs["id"])["content"], "Reader's runbook")

    def test_api_key_from_environment(self):
        old = os.environ.get("LOCI_API_KEY")
        os.environ["LOCI_API_KEY"] = servers["viewer_key"]
        try:
            client = loci.Client(servers["auth"].url)
        finally:
            if old is None:
                del os.environ["LOCI_API_KEY"]
            else:
                os.environ["LOCI_API_KEY"] = old
        self.assertEqual(client.recall_all("writer")["success"], True)
        with self.assertRaises(loci.Forbidden):  # not Unauthorized: the viewer key was sent
            client.remember("writer", "tone", "x")


class TestRateLimit(unittest.TestCase):
    """A server allowing one request a second (burst 1) per client."""

    def test_rate_limited(self):
        client = loci.Client(servers["limited"].url, max_retries=0)
        err = None
        for _ in range(50):
            try:
                client.recall_all("limited")
            except loci.RateLimited as e:
                err = e
                break
        self.assertIsNotNone(err, "50 requests at once were never limited")
        self.assertEqual((err.status, err.code), (429, "rate_limited"))
        self.assertGreaterEqual(err.retry_after, 1)
        self.assertIn("too many requests", err.message)

    def test_retry_after_over_the_bound_is_raised(self):
        client = loci.Client(servers["limited"].url, max_retries=3, max_retry_wait=0.5)
        with self.assertLogs("loci", "INFO") as logs:
            with self.assertRaises(loci.RateLimited):
                for _ in range(50):
                    client.recall_all("limited")
            logging.getLogger("loci").info("sentinel")
        self.assertEqual(logs.output, ["INFO:loci:sentinel"])  # raised without a retry

    def test_retries_honour_retry_after(self):
        # Every request is retried on 429, a POST too: the limit refuses a
        # request before it does anything, so nothing is stored twice.
        client = loci.Client(servers["limited"].url, max_retries=3)
        added = 0
        with self.assertLogs("loci", "INFO") as logs:
            for i in range(20):
                client.add_passage("limited-writer", "passage %d" % i)
                added += 1
                if any("429 rate_limited" in line for line in logs.output):
                    break
        self.assertTrue(any("429 rate_limited" in line for line in logs.output), logs.output)
        self.assertEqual(client.list_passages("limited-writer")["count"], added)


class TestRetries(unittest.TestCase):
    """503 and dropped connections, through a proxy in front of the real server."""

    def setUp(self):
        self.proxy = FaultProxy(servers["open"].url)
        self.addCleanup(self.proxy.close)
        self.client = loci.Client(self.proxy.url, max_retries=2, backoff=0.01)
        self.client.remember("retries", "k", "The wall is painted teal")

    def test_idempotent_retried_on_503(self):
        self.proxy.inject("503", "503")
        with self.assertLogs("loci", "INFO") as logs:
            self.assertEqual(self.client.recall("retries", "k")["value"], "The wall is painted teal")
        self.assertEqual(len(self.proxy.seen), 3)
        self.assertEqual(len([x for x in logs.output if "503 unavailable" in x]), 2)

    def test_retries_are_bounded(self):
        self.proxy.inject("503", "503", "503", "503")
        with self.assertRaises(loci.Unavailable) as cm:
            self.client.recall("retries", "k")
        self.assertEqual(len(self.proxy.seen), 3)
        self.assertEqual((cm.exception.status, cm.exception.retry_after), (503, 0.0))
        self.assertEqual(cm.exception.message, "storage unreachable")

    def test_storage_full_not_retried(self):
        # A full disk does not heal in seconds: raised at once, a PUT too.
        self.proxy.inject("507", "507", "507")
        with self.assertLogs("loci", "INFO") as logs:
            with self.assertRaises(loci.StorageFull) as cm:
                self.client.remember("retries", "k3", "v3")
            logging.getLogger("loci").info("sentinel")
        self.assertEqual(logs.output, ["INFO:loci:sentinel"])  # raised without a retry
        self.assertEqual(len(self.proxy.seen), 1)
        err = cm.exception
        self.assertIsInstance(err, loci.ServerError)
        self.assertEqual((err.status, err.code, err.message), (507, "storage_full", "storage full: the disk has no space left"))
        self.proxy.inject()
        with self.assertRaises(loci.NotFound):
            self.client.recall("retries", "k3")

    def test_idempotent_retried_on_dropped_connection(self):
        self.proxy.inject("drop")
        self.assertEqual(self.client.remember("retries", "k2", "v2")["action"], "created")
        self.proxy.inject("drop")
        self.assertEqual(self.client.forget("retries", "k2"), {"success": True})
        self.proxy.inject("drop", "503")
        self.assertEqual(self.client.search("teal", agent_id="retries")["count"], 1)
        self.assertEqual(len(self.proxy.seen), 3)

    def test_post_not_retried(self):
        self.proxy.inject("drop")
        with self.assertRaises(loci.TransportError):
            self.client.add_passage("retries", "once only")
        self.assertEqual(len(self.proxy.seen), 1)
        self.proxy.inject("503")
        with self.assertRaises(loci.Unavailable):
            self.client.add_passage("retries", "once only")
        self.assertEqual(len(self.proxy.seen), 1)
        self.assertEqual(self.client.list_passages("retries")["count"], 0)


class TestTransport(unittest.TestCase):
    def test_connection_refused(self):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        s.close()
        client = loci.Client("http://127.0.0.1:%d" % port, max_retries=2, backoff=0.01)
        with self.assertLogs("loci", "INFO") as logs, self.assertRaises(loci.TransportError) as cm:
            client.recall("a", "k")
        self.assertEqual(len(logs.output), 2)
        self.assertIn("cannot reach loci", cm.exception.message)
        self.assertIsNone(cm.exception.status)
        self.assertFalse(cm.exception.timed_out)

    def test_timeout_not_retried(self):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        s.listen(8)  # accepts connections (the backlog) and never answers
        self.addCleanup(s.close)
        client = loci.Client("http://127.0.0.1:%d" % s.getsockname()[1], timeout=0.2, max_retries=2)
        with self.assertRaises(loci.TransportError) as cm:
            client.recall("a", "k")
        self.assertTrue(cm.exception.timed_out)
        self.assertIn("timed out", cm.exception.message)


if __name__ == "__main__":
    unittest.main()
