"""The memories API through loci.Client and loci.AsyncClient, against a
real `loci serve`: every method, and its error cases.

The scenarios are written once (MemoryScenarios) and run twice: on the blocking
client, and on the asyncio one through a shim that awaits each call on one
event loop. The asyncio client's own behaviour (concurrency, retries without
blocking the loop, cancellation) is tested below them.
"""

import asyncio
import datetime
import inspect
import os
import sys
import time
import unittest
from unittest import mock

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import loci  # noqa: E402
from faults import FaultProxy  # noqa: E402
from server import Server  # noqa: E402

server = None


def setUpModule():
    global server
    server = Server().start()


def tearDownModule():
    server.stop()


def _future(**delta):
    return datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(**delta)


class MemoryScenarios:
    """Each test takes self.c (a client whose methods answer at once) and self.p
    (a prefix that keeps the two runs' users and agents apart)."""

    def test_add_messages(self):
        c, u = self.c, self.p + "alex"
        res = c.add_messages(
            [
                {"role": "system", "content": "You are a helpful chef"},
                {"role": "user", "content": "I am vegetarian"},
                {"role": "assistant", "content": "Noted"},
            ],
            user_id=u,
            session_id=u + "-dinner",
        )
        self.assertEqual([(r["event"], r["content"], r["role"]) for r in res["results"]], [("ADD", "I am vegetarian", "user")])
        self.assertEqual([(s["index"], s["role"]) for s in res["skipped"]], [(0, "system"), (2, "assistant")])
        self.assertEqual(res["inference"]["mode"], "rule")
        self.assertEqual(res["session"]["appended"], 3)
        queued = c.add_messages([{"role": "user", "content": "I love hiking"}], user_id=u, run_async=True, infer=False)
        self.assertEqual(queued["status"], "PENDING")
        for _ in range(200):
            ev = c.get_event(queued["event_id"])
            if ev["status"] != "PENDING":
                break
            time.sleep(0.05)
        self.assertEqual((ev["status"], [r["content"] for r in ev["results"]]), ("SUCCEEDED", ["I love hiking"]))
        with self.assertRaises(loci.Invalid):
            c.add_messages([{"role": "robot", "content": "beep"}], user_id=u)
        with self.assertRaises(loci.NotFound):
            c.get_event("nope")

    def test_add_get_noop_update(self):
        c, u = self.c, self.p + "alice"
        ev = c.add_memory("Alice likes  green tea", user_id=u, metadata={"source": "chat", "n": 2}, tags=["drinks"])
        self.assertEqual((ev["success"], ev["kind"], ev["event"]), (True, "fact", "ADD"))
        m = c.get_memory(ev["id"])
        self.assertEqual(m["id"], ev["id"])
        self.assertEqual((m["kind"], m["content"], m["user_id"], m["category"]), ("fact", "Alice likes  green tea", u, "general_fact"))
        self.assertEqual(m["metadata"], {"source": "chat", "n": 2})
        self.assertEqual(m["tags"], ["drinks"])
        self.assertEqual(m["version"], 1)

        # The same content again, case and spacing aside: NOOP, the same id.
        again = c.add_memory("alice likes green TEA", user_id=u)
        self.assertEqual((again["event"], again["id"]), ("NOOP", ev["id"]))
        self.assertEqual(c.list_memories(user_id=u)["count"], 1)

        # A keyed fact: new content supersedes, the old version is history.
        home = c.add_memory("Lives in Paris", user_id=u, key="home", category="location")
        up = c.add_memory("Lives in Berlin", user_id=u, key="home", category="location")
        self.assertEqual((up["event"], up["previous_id"]), ("UPDATE", home["id"]))
        self.assertNotEqual(up["id"], home["id"])
        hist = c.memory_history(up["id"])
        self.assertEqual(hist["count"], 2)
        self.assertEqual([(v["event"], v["content"], v["current"]) for v in hist["versions"]],
                         [("UPDATE", "Lives in Berlin", True), ("ADD", "Lives in Paris", False)])

        # Passages and notes where their rules hold.
        agent = self.p + "ops"
        p = c.add_memory("Deploy failed at 3am", agent_id=agent, kind="passage", tags=["incident"])
        self.assertEqual((p["kind"], p["event"]), ("passage", "ADD"))
        self.assertEqual(c.add_memory("deploy failed at 3AM", agent_id=agent, kind="passage")["event"], "NOOP")
        n = c.add_memory("Thursday", agent_id=agent, kind="note", key="day")
        self.assertEqual(c.add_memory("Friday", agent_id=agent, kind="note", key="day")["event"], "UPDATE")
        self.assertEqual(c.get_memory(n["id"])["content"], "Friday")

    def test_scoped_helpers(self):
        u = self.c.user(self.p + "scoped-u")
        ev = u.add_memory("Allergic to peanuts", category="health", metadata={"severity": "high"})
        self.assertEqual(self.c.get_memory(ev["id"])["user_id"], self.p + "scoped-u")
        self.assertEqual(u.list_memories(filters={"metadata.severity": "high"})["count"], 1)
        a = self.c.agent(self.p + "scoped-a")
        pv = a.add_memory("Runbook: restart the queue", kind="passage")
        self.assertEqual(self.c.get_memory(pv["id"])["agent_id"], self.p + "scoped-a")

    def test_update(self):
        c, u = self.c, self.p + "patch-u"
        f = c.add_memory("Prefers email", user_id=u, metadata={"v": 0})
        ev = c.update_memory(f["id"], content="Prefers phone calls")
        self.assertEqual((ev["event"], ev["id"], ev["version"]), ("UPDATE", f["id"], 2))
        # Metadata not given is kept.
        self.assertEqual(c.get_memory(f["id"])["metadata"], {"v": 0})
        same = c.update_memory(f["id"], content="prefers phone  calls")
        self.assertEqual((same["event"], same["version"]), ("NOOP", 2))
        ev = c.update_memory(f["id"], metadata={"v": 1}, tags=["contact"])
        self.assertEqual((ev["event"], ev["version"]), ("UPDATE", 3))
        m = c.get_memory(f["id"])
        self.assertEqual((m["metadata"], m["tags"], m["version"]), ({"v": 1}, ["contact"], 3))
        hist = c.memory_history(f["id"])["versions"]
        self.assertEqual([v["version"] for v in hist], [3, 2, 1])
        self.assertEqual(hist[0]["metadata"], {"v": 1})
        self.assertEqual(hist[2]["content"], "Prefers email")
        # metadata=None clears it, unlike leaving it out.
        ev = c.update_memory(f["id"], metadata=None)
        self.assertEqual(ev["event"], "UPDATE")
        self.assertFalse(c.get_memory(f["id"]).get("metadata"))
        # A time to live, as a datetime or in seconds.
        c.update_memory(f["id"], expires_at=_future(hours=1))
        self.assertTrue(c.get_memory(f["id"])["expires_at"])
        c.update_memory(f["id"], ttl_seconds=3600)
        # Metadata of any JSON, answered as sent.
        meta = {"topicName": "food", "recipe": {"kind": "stew", "serves": 4}, "none": None, "big": 9007199254740993}
        c.update_memory(f["id"], metadata=meta)
        self.assertEqual(c.get_memory(f["id"])["metadata"], meta)
        found = c.list_memories(user_id=u, filters={"metadata.recipe.kind": {"icontains": "STEW"}})["memories"]
        self.assertEqual([m["id"] for m in found], [f["id"]])

    def test_update_errors(self):
        c, u = self.c, self.p + "patch-err"
        with self.assertRaises(loci.NotFound) as cm:
            c.update_memory("mem_does_not_exist", content="x")
        self.assertEqual(cm.exception.status, 404)
        # A session message is written through its session's routes.
        c.put_session(self.p + "s1", u, messages=[{"role": "user", "content": "hi"}])
        msgs = [m for m in c.list_memories(session_id=self.p + "s1", kind="session")["memories"] if m["content"] == "hi"]
        self.assertEqual(len(msgs), 1)
        with self.assertRaises(loci.Conflict) as cm:
            c.update_memory(msgs[0]["id"], content="bye")
        self.assertEqual(cm.exception.status, 409)
        f = c.add_memory("Temporary", user_id=u)
        with self.assertRaises(loci.Invalid):
            c.update_memory(f["id"], expires_at=_future(hours=-1))
        with self.assertRaises(loci.Invalid):
            c.update_memory(f["id"], metadata={"bad.key": 1})
        self.assertEqual(c.get_memory(f["id"])["version"], 1)

    def test_delete_and_history_after(self):
        c, u = self.c, self.p + "del-u"
        f = c.add_memory("Owns a cat", user_id=u)
        self.assertEqual(c.delete_memory(f["id"]), {"success": True})
        for call in (c.get_memory, c.delete_memory, c.memory_history):
            with self.assertRaises(loci.NotFound) as cm:
                call(f["id"])
            self.assertEqual(cm.exception.status, 404)
        with self.assertRaises(loci.NotFound):
            c.get_memory("no/such id?")  # escaped in the path, still a 404

    def test_add_errors(self):
        c, u = self.c, self.p + "add-err"
        for kwargs in (
            dict(user_id=u, category="Food!"),
            dict(kind="note", agent_id="a"),  # a note needs a key
            dict(kind="passage"),  # a passage needs an agent
            dict(kind="memo", user_id=u),
            dict(user_id=u, metadata={"a": {"b": {"c": {"d": {"e": 1}}}}}),  # five levels
            dict(user_id=u, expires_at=_future(hours=-1)),
            dict(user_id=u, ttl_seconds=0),
        ):
            with self.subTest(kwargs=kwargs), self.assertRaises(loci.Invalid) as cm:
                c.add_memory("x", **kwargs)
            self.assertEqual(cm.exception.status, 400)
        with self.assertRaises(loci.Invalid):
            c.add_memory("   ", user_id=u)
        with self.assertRaises(loci.TooLarge) as cm:
            c.add_memory("x", user_id=u, metadata={"a": "x" * 5000})
        self.assertEqual((cm.exception.status, cm.exception.code), (413, "too_large"))
        self.assertEqual(c.list_memories(user_id=u)["count"], 0)

    def test_time_to_live(self):
        c, u = self.c, self.p + "ttl-u"
        f = c.add_memory("Door code 1234", user_id=u, ttl_seconds=1)
        self.assertTrue(c.get_memory(f["id"])["expires_at"])
        g = c.add_memory("Parking on level 2", user_id=u, expires_at=_future(days=1))
        self.assertEqual(c.get_memory(g["id"])["content"], "Parking on level 2")
        time.sleep(1.2)
        with self.assertRaises(loci.NotFound):
            c.get_memory(f["id"])
        self.assertEqual([m["id"] for m in c.list_memories(user_id=u)["memories"]], [g["id"]])
        self.assertEqual(c.search("door code", user_id=u)["count"], 0)

    def test_filters(self):
        c, u = self.c, self.p + "filter-u"
        for content, meta, tags in (
            ("Paris trip in May", {"topic": "travel", "stars": 5, "labels": ["trip", "eu"]}, None),
            ("Rome trip in June", {"topic": "travel", "stars": 3}, None),
            ("Likes jazz", {"topic": "music", "stars": 4}, None),
            ("Likes trips to the sea", None, ["sea"]),
        ):
            c.add_memory(content, user_id=u, metadata=meta, tags=tags)
        cases = [
            ({"metadata.topic": "travel"}, 2),
            ({"metadata.stars": {"gte": 4}}, 2),
            ({"and": [{"metadata.topic": "travel"}, {"metadata.stars": {"lt": 4}}]}, 1),
            ({"or": [{"metadata.topic": "music"}, {"tags": {"contains": "sea"}}]}, 2),
            ({"not": {"metadata.topic": "travel"}}, 2),
            ({"metadata.topic": {"in": ["music", "art"]}}, 1),
            ({"metadata.topic": {"nin": ["music"]}}, 3),
            ({"metadata.labels": {"contains": "eu"}}, 1),
            ({"kind": "fact", "metadata.stars": {"gt": 3}}, 2),
        ]
        for f, want in cases:
            with self.subTest(filters=f):
                page = c.list_memories(user_id=u, filters=f, limit=1)
                self.assertEqual((page["count"], len(page["memories"])), (want, 1))
                self.assertLessEqual(c.search("trip jazz sea likes", user_id=u, filters=f)["count"], want)
        self.assertEqual(c.list_memories(user_id=u, filters='{"metadata.topic": "music"}')["count"], 1)  # JSON text as it is
        with self.assertRaises(loci.Invalid):
            c.list_memories(user_id=u, filters="{not json")
        travel = c.search("trip", user_id=u, filters={"metadata.topic": "travel"}, limit=2)
        self.assertEqual(sorted(r["content"] for r in travel["results"]), ["Paris trip in May", "Rome trip in June"])
        self.assertEqual(c.list_memories(user_id=u, kind="fact", filters={"metadata.stars": 4})["memories"][0]["content"], "Likes jazz")
        self.assertEqual(c.list_memories(user_id=u, filters={"and": []})["count"], 4)  # {} holds, wherever it stands
        self.assertEqual(c.list_memories(user_id=u, filters={"or": []})["count"], 0)
        for bad in ({"colour": "red"}, {"metadata.x": {"like": 1}}, {"tags": {"gt": "a"}}, {"and": {}}):
            with self.subTest(bad=bad):
                with self.assertRaises(loci.Invalid) as cm:
                    c.list_memories(user_id=u, filters=bad)
                self.assertEqual(cm.exception.status, 400)
                with self.assertRaises(loci.Invalid):
                    c.search("trip", user_id=u, filters=bad)

    def test_batch(self):
        c, u = self.c, self.p + "batch-u"
        a = c.add_memory("one", user_id=u)
        b = c.add_memory("two", user_id=u, metadata={"keep": True})

        # One bad operation: nothing applied, the error names it.
        with self.assertRaises(loci.Invalid) as cm:
            c.batch_memories(
                add=[{"content": "three", "user_id": u}, {"content": "four", "user_id": u, "category": "Bad!"}],
                update=[{"id": b["id"], "content": "two!"}],
                delete=[a["id"]],
            )
        self.assertIn("add[1]", cm.exception.message)
        self.assertEqual(sorted(m["content"] for m in c.list_memories(user_id=u)["memories"]), ["one", "two"])
        with self.assertRaises(loci.NotFound):
            c.batch_memories(add=[{"content": "five", "user_id": u}], delete=["mem_nope"])
        self.assertEqual(c.list_memories(user_id=u)["count"], 2)
        with self.assertRaises(loci.Invalid) as cm:
            c.batch_memories(update=[{"content": "no id"}])
        self.assertIn("update[0]", cm.exception.message)
        with self.assertRaises(loci.Invalid):
            c.batch_memories(add=[{"content": "x%d" % i, "user_id": u} for i in range(1001)])
        self.assertEqual(c.list_memories(user_id=u)["count"], 2)

        res = c.batch_memories(
            add=[
                {"content": "three", "user_id": u, "expires_at": _future(days=1)},
                {"content": "THREE", "user_id": u},
            ],
            update=[{"id": b["id"], "content": "two!", "metadata": None}],
            delete=[a["id"]],
        )
        self.assertEqual(res["count"], 4)
        self.assertEqual([r["event"] for r in res["results"]], ["ADD", "NOOP", "UPDATE", "DELETE"])
        self.assertEqual(res["results"][1]["id"], res["results"][0]["id"])
        self.assertTrue(c.get_memory(res["results"][0]["id"])["expires_at"])
        two = c.get_memory(b["id"])
        self.assertEqual(two["content"], "two!")
        self.assertFalse(two.get("metadata"))  # "metadata": None cleared it
        with self.assertRaises(loci.NotFound):
            c.get_memory(a["id"])


class TestMemories(MemoryScenarios, unittest.TestCase):
    p = "sync-"

    def setUp(self):
        self.c = loci.Client(server.url)

    def test_unset_is_not_none(self):
        self.assertIsNot(loci.UNSET, None)
        self.assertFalse(loci.UNSET)
        self.assertEqual(repr(loci.UNSET), "UNSET")
        self.assertIs(inspect.signature(loci.Client.update_memory).parameters["metadata"].default, loci.UNSET)


class _Awaiting:
    """A blocking face of an AsyncClient (or its scoped helpers): each method's
    coroutine is awaited on loop, so the scenarios above run unchanged."""

    def __init__(self, target, loop):
        self._target = target
        self._loop = loop

    def __getattr__(self, name):
        attr = getattr(self._target, name)
        if inspect.iscoroutinefunction(attr):
            return lambda *a, **kw: self._loop.run_until_complete(attr(*a, **kw))
        if name in ("agent", "user"):
            return lambda *a, **kw: _Awaiting(attr(*a, **kw), self._loop)
        raise AttributeError("%s is not a coroutine method of %r" % (name, self._target))


class TestAsyncMemories(MemoryScenarios, unittest.TestCase):
    p = "async-"

    def setUp(self):
        loop = asyncio.new_event_loop()
        self.addCleanup(loop.close)
        self.c = _Awaiting(loci.AsyncClient(server.url), loop)


class TestAsyncClient(unittest.IsolatedAsyncioTestCase):
    """What only the asyncio client does."""

    def test_same_methods(self):
        # Every public method of Client (and of its scoped helpers) is a
        # coroutine method of AsyncClient with the same signature.
        for sync_cls, async_cls in (
            (loci.Client, loci.AsyncClient),
            (loci.AgentClient, loci.AsyncAgentClient),
            (loci.UserClient, loci.AsyncUserClient),
        ):
            for name, fn in inspect.getmembers(sync_cls, inspect.isfunction):
                if name.startswith("_") or name in ("agent", "user"):
                    continue
                with self.subTest(cls=async_cls.__name__, method=name):
                    afn = getattr(async_cls, name, None)
                    self.assertTrue(inspect.iscoroutinefunction(afn), name)
                    self.assertEqual(str(inspect.signature(afn)), str(inspect.signature(fn)))
                    self.assertEqual(inspect.getdoc(afn), inspect.getdoc(fn))
        self.assertTrue(issubclass(loci.AsyncClient, loci.client._ClientBase))
        self.assertFalse(issubclass(loci.AsyncClient, loci.Client))

    async def test_concurrent_requests(self):
        c = loci.AsyncClient(server.url)
        u = "async-many"
        evs = await asyncio.gather(*(c.add_memory("memory number %d" % i, user_id=u, metadata={"i": i}) for i in range(20)))
        self.assertEqual(sorted(e["event"] for e in evs), ["ADD"] * 20)
        self.assertEqual(len({e["id"] for e in evs}), 20)
        got = await asyncio.gather(*(c.get_memory(e["id"]) for e in evs))
        self.assertEqual([m["metadata"]["i"] for m in got], list(range(20)))
        self.assertEqual((await c.list_memories(user_id=u, filters={"metadata.i": {"lt": 5}}))["count"], 5)
        self.assertEqual((await c.user(u).list_memories())["count"], 20)
        await c.create_agent("async-agent", blocks=[{"label": "persona", "content": "Calm"}])
        self.assertEqual(await c.prompt("async-agent"), "### persona\nCalm")
        self.assertIn('"kind"', await c.export(user_id=u))

    async def test_errors_and_retries(self):
        proxy = FaultProxy(server.url)
        self.addCleanup(proxy.close)
        c = loci.AsyncClient(proxy.url, max_retries=2, backoff=0.01)
        ev = await c.add_memory("Async retry target", user_id="async-retry")
        # GET is retried on 503 (waiting with asyncio.sleep, not in a thread).
        proxy.inject("503", "503")
        with self.assertLogs("loci", "INFO") as logs:
            self.assertEqual((await c.get_memory(ev["id"]))["content"], "Async retry target")
        self.assertEqual(len(proxy.seen), 3)
        self.assertEqual(len(logs.output), 2)
        # Bounded.
        proxy.inject("503", "503", "503")
        with self.assertRaises(loci.Unavailable):
            await c.get_memory(ev["id"])
        self.assertEqual(len(proxy.seen), 3)
        # A POST is not retried after a dropped connection.
        proxy.inject("drop")
        with self.assertRaises(loci.TransportError):
            await c.add_memory("Sent once", user_id="async-retry")
        self.assertEqual(len(proxy.seen), 1)
        proxy.inject()
        self.assertEqual((await c.list_memories(user_id="async-retry"))["count"], 1)

    async def test_backoff_does_not_block_the_loop(self):
        proxy = FaultProxy(server.url)
        self.addCleanup(proxy.close)
        # A 503 with Retry-After: 0 and a long backoff between retries: the
        # wait is asyncio.sleep, so other tasks run meanwhile, and
        # cancelling the call ends it during the wait.
        c = loci.AsyncClient(proxy.url, max_retries=1, backoff=30)
        proxy.inject("drop")

        def blocking_sleep(seconds):
            raise AssertionError("the asyncio client slept in a thread (%s s)" % seconds)

        patcher = mock.patch.object(loci.client.time, "sleep", blocking_sleep)
        patcher.start()
        self.addCleanup(patcher.stop)
        task = asyncio.ensure_future(c.health())
        ticks = 0
        while len(proxy.seen) < 1 or ticks < 5:
            await asyncio.sleep(0.02)
            ticks += 1
        self.assertFalse(task.done())
        task.cancel()
        with self.assertRaises(asyncio.CancelledError):
            await task

    async def test_transport_error(self):
        import socket

        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        s.close()
        c = loci.AsyncClient("http://127.0.0.1:%d" % port, max_retries=1, backoff=0.01)
        with self.assertRaises(loci.TransportError) as cm:
            await c.get_memory("x")
        self.assertIn("cannot reach loci", cm.exception.message)


if __name__ == "__main__":
    unittest.main()
