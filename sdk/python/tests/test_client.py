"""Every method of loci.Client and its scoped helpers, against a real `loci serve`."""

import datetime
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import loci  # noqa: E402
from server import Server  # noqa: E402

server = None


def setUpModule():
    global server
    server = Server().start()


def tearDownModule():
    server.stop()


class Base(unittest.TestCase):
    def setUp(self):
        self.client = loci.Client(server.url)


class TestHealth(Base):
    def test_health_and_ready(self):
        self.assertEqual(self.client.health(), {"success": True, "status": "ok"})
        self.assertEqual(
            self.client.ready(),
            {"success": True, "status": "ready", "writes": "ok", "retrieval": {"mode": "lexical", "model": None}},
        )

    def test_base_url_from_environment(self):
        old = os.environ.get("LOCI_URL")
        os.environ["LOCI_URL"] = server.url + "/"
        try:
            c = loci.Client()
        finally:
            if old is None:
                del os.environ["LOCI_URL"]
            else:
                os.environ["LOCI_URL"] = old
        self.assertEqual(c.base_url, server.url)
        self.assertEqual(c.health()["status"], "ok")

    def test_bad_base_url(self):
        with self.assertRaises(ValueError):
            loci.Client("127.0.0.1:8420")


class TestNotes(Base):
    def test_remember_recall_forget(self):
        c = self.client
        got = c.remember("notes-a", "best_posting_time", "Thursday 9am")
        self.assertEqual(got["action"], "created")
        self.assertEqual(got["message"], "Remembered: best_posting_time")
        self.assertEqual(c.remember("notes-a", "best_posting_time", "Friday 8am")["action"], "updated")
        c.remember("notes-a", "limits", {"posts_per_day": 3})

        note = c.recall("notes-a", "best_posting_time")
        self.assertEqual(note["value"], "Friday 8am")
        self.assertEqual(c.recall("notes-a", "limits")["value"], {"posts_per_day": 3})

        everything = c.recall_all("notes-a")
        self.assertEqual(everything["count"], 2)
        self.assertEqual(sorted(m["key"] for m in everything["memories"]), ["best_posting_time", "limits"])
        self.assertEqual(len(c.recall_all("notes-a", limit=1, offset=1)["memories"]), 1)

        history = c.note_history("notes-a", "best_posting_time")
        self.assertEqual([v["value"] for v in history["versions"]], ["Friday 8am", "Thursday 9am"])

        self.assertEqual(c.forget("notes-a", "best_posting_time"), {"success": True})
        with self.assertRaises(loci.NotFound) as cm:
            c.recall("notes-a", "best_posting_time")
        self.assertEqual(cm.exception.message, "Memory not found")

    def test_keys_are_escaped(self):
        key = "a key/with?odd#chars&é"
        self.client.remember("notes-b", key, "v")
        self.assertEqual(self.client.recall("notes-b", key)["key"], key)

    def test_agent_scope(self):
        writer = self.client.agent("notes-c")
        self.assertEqual(writer.remember("tone", "friendly")["action"], "created")
        self.assertEqual(writer.recall("tone")["value"], "friendly")
        self.assertEqual(writer.recall_all(limit=10)["count"], 1)
        writer.remember("tone", "warm")
        self.assertEqual(len(writer.note_history("tone")["versions"]), 2)
        writer.forget("tone")
        self.assertEqual(writer.recall_all()["count"], 0)


class TestAgentsAndBlocks(Base):
    def test_agents(self):
        c = self.client
        created = c.create_agent("michael", name="Michael Scott")
        self.assertEqual(created["id"], "michael")
        self.assertEqual(sorted(b["label"] for b in created["blocks"]), ["current_state", "personality", "relationships"])
        custom = c.create_agent("jim", blocks=[{"label": "pranks", "content": "stapler in jello", "limit": 100}])
        self.assertEqual([(b["label"], b["limit"]) for b in custom["blocks"]], [("pranks", 100)])
        with self.assertRaises(loci.Conflict):
            c.create_agent("michael")
        self.assertEqual(c.get_agent("michael")["name"], "Michael Scott")
        ids = [a["id"] for a in c.list_agents(limit=1000)["agents"]]
        self.assertIn("michael", ids)
        self.assertIn("jim", ids)
        self.assertEqual(len(c.list_agents(limit=1)["agents"]), 1)
        c.delete_agent("jim")
        with self.assertRaises(loci.NotFound):
            c.get_agent("jim")

    def test_blocks_compare_and_set(self):
        c = self.client
        first = c.set_block("dwight", "personality", "Assistant to the regional manager")
        self.assertEqual((first["action"], first["version"]), ("created", 1))
        second = c.set_block("dwight", "personality", "Beet farmer", expected_version=1)
        self.assertEqual((second["action"], second["version"]), ("updated", 2))
        with self.assertRaises(loci.Conflict):
            c.set_block("dwight", "personality", "Stale write", expected_version=1)
        with self.assertRaises(loci.Conflict):
            c.set_block("dwight", "personality", "Only if new", expected_version=0)
        self.assertEqual(c.get_block("dwight", "personality")["content"], "Beet farmer")
        c.set_block("dwight", "motto", "Bears. Beets.", limit=20)
        with self.assertRaises(loci.TooLarge):
            c.set_block("dwight", "motto", "x" * 21)
        labels = [b["label"] for b in c.list_blocks("dwight")["blocks"]]
        self.assertIn("motto", labels)
        self.assertIn("personality", labels)
        prompt = c.prompt("dwight")
        self.assertIsInstance(prompt, str)
        self.assertIn("### personality\nBeet farmer", prompt)

        history = c.block_history("dwight", "personality")
        self.assertEqual((history["label"], history["count"]), ("personality", 2))
        self.assertEqual(
            [(v["version"], v["content"]) for v in history["versions"]], [(2, "Beet farmer"), (1, "Assistant to the regional manager")]
        )
        with self.assertRaises(loci.NotFound):
            c.block_history("dwight", "no_such_block")

    def test_shared_blocks(self):
        c = self.client
        c.create_agent("pam")
        c.create_agent("angela")
        shared = c.create_block("pam", "office_news", "Party on Friday", shared=True)
        self.assertTrue(shared["is_shared"])
        self.assertEqual(shared["owner_agent_id"], "pam")
        own = c.create_block("pam", "sketches", "Watercolours")
        self.assertFalse(own["is_shared"])
        with self.assertRaises(loci.Conflict):
            c.create_block("pam", "sketches", "again")

        attached = c.attach_block(shared["id"], "angela")
        self.assertEqual(attached["agent_id"], "angela")
        c.attach_block(shared["id"], "angela")  # idempotent
        consumers = c.list_block_consumers(shared["id"])
        self.assertEqual([x["agent_id"] for x in consumers["consumers"]], ["angela"])
        self.assertIn("### office_news\nParty on Friday", c.prompt("angela"))

        c.detach_block(shared["id"], "angela")
        self.assertEqual(c.list_block_consumers(shared["id"])["count"], 0)
        with self.assertRaises(loci.NotFound):
            c.detach_block(shared["id"], "angela")

    def test_agent_scope(self):
        c = self.client
        kevin = c.agent("kevin")
        self.assertEqual(kevin.create(name="Kevin")["id"], "kevin")
        self.assertEqual(kevin.get()["name"], "Kevin")
        v = kevin.set_block("personality", "Chili")["version"]
        kevin.set_block("personality", "Famous chili", expected_version=v)
        self.assertEqual(kevin.get_block("personality")["content"], "Famous chili")
        self.assertEqual([x["content"] for x in kevin.block_history("personality")["versions"]], ["Famous chili", "Chili", ""])
        shared = kevin.create_block("snacks", "M&Ms", shared=True)
        self.assertIn("snacks", [b["label"] for b in kevin.list_blocks()["blocks"]])
        oscar = c.agent("oscar")
        oscar.create()
        oscar.attach_block(shared["id"])
        self.assertIn("M&Ms", oscar.prompt())
        oscar.detach_block(shared["id"])
        self.assertNotIn("M&Ms", oscar.prompt())
        self.assertIn("Famous chili", kevin.prompt())
        kevin.delete()
        with self.assertRaises(loci.NotFound):
            kevin.get()


class TestPassages(Base):
    def test_passages(self):
        c = self.client
        a = c.add_passage("stanley", "That time Michael grilled his foot", tags=["episode"])
        self.assertTrue(a["id"])
        b = c.add_passage("stanley", "Pretzel day is the best day of the year")
        listed = c.list_passages("stanley")
        self.assertEqual(listed["count"], 2)
        self.assertEqual(listed["passages"][0]["id"], b["id"])  # newest first
        tagged = c.list_passages("stanley", tag="episode", limit=20, offset=0)
        self.assertEqual([p["id"] for p in tagged["passages"]], [a["id"]])

        found = c.search_passages("stanley", "grilled foot", limit=5)
        self.assertEqual(found["results"][0]["id"], a["id"])
        self.assertGreater(found["results"][0]["score"], 0)
        explained = c.search_passages("stanley", "pretzel", tag=None, explain=True)
        self.assertIn("explain", explained["results"][0])
        self.assertEqual(c.search_passages("stanley", "grilled", tag="nothing")["count"], 0)

        c.delete_passage("stanley", a["id"])
        with self.assertRaises(loci.NotFound):
            c.delete_passage("stanley", a["id"])

    def test_agent_scope(self):
        creed = self.client.agent("creed")
        p = creed.add_passage("Sprouts and mung beans", tags=["food"])
        self.assertEqual(creed.list_passages(tag="food")["count"], 1)
        self.assertEqual(creed.search_passages("mung beans")["results"][0]["id"], p["id"])
        creed.delete_passage(p["id"])
        self.assertEqual(creed.list_passages()["count"], 0)


class TestSessions(Base):
    def test_sessions(self):
        c = self.client
        put = c.put_session(
            "s1",
            "sess-u1",
            context={"vertical": "Retail"},
            summary="Planned the Q3 campaign",
            messages=[{"role": "user", "content": "Budget is 500K"}],
            is_persistent=True,
            expires_at=datetime.datetime(2099, 1, 1, tzinfo=datetime.timezone.utc),
            confidence=80,
        )
        self.assertEqual(put["action"], "created")
        self.assertEqual(put["expires_at"], "2099-01-01T00:00:00Z")
        self.assertEqual(c.put_session("s1", "sess-u1", summary="Replanned")["action"], "updated")
        with self.assertRaises(loci.Conflict):
            c.put_session("s1", "someone-else")

        appended = c.append_message("s1", "assistant", "Noted")
        self.assertEqual(appended["message_count"], 1)
        self.assertEqual(appended["index"], 0)
        with self.assertRaises(loci.NotFound):
            c.append_message("no-such-session", "user", "hello")

        got = c.get_session("s1")
        self.assertEqual(got["summary"], "Replanned")
        self.assertEqual([m["content"] for m in got["messages"]], ["Noted"])

        c.put_session("s2", "sess-u1", summary="Second")
        listed = c.list_sessions("sess-u1", limit=10, offset=0)
        self.assertEqual(listed["count"], 2)
        self.assertEqual(listed["sessions"][0]["session_id"], "s2")

        self.assertEqual(c.delete_session("s1")["deleted"], True)
        self.assertEqual(c.delete_session("s1")["deleted"], False)
        with self.assertRaises(loci.NotFound):
            c.get_session("s1")

    def test_user_scope(self):
        u = self.client.user("sess-u2")
        u.put_session("s3", summary="Talked about CTV", is_persistent=True)
        self.assertEqual(u.list_sessions()["count"], 1)


class TestWorkingMemory(Base):
    def test_working(self):
        c = self.client
        put = c.set_working("t1", "plan", {"step": 2, "of": 5}, "planner")
        self.assertEqual(put["action"], "created")
        c.set_working("t1", "note", "check budget", "planner", user_id="work-u1")
        self.assertEqual(c.get_working("t1", "plan")["value"], {"step": 2, "of": 5})
        self.assertEqual(c.get_working("t1", "note", agent_id="planner", user_id="work-u1")["user_id"], "work-u1")
        c.set_working("t1", "tmp", "scratch", "planner")
        c.delete_working("t1", "tmp")
        with self.assertRaises(loci.NotFound):
            c.get_working("t1", "tmp")
        with self.assertRaises(loci.NotFound):
            c.delete_working("t1", "tmp")
        values = c.list_working("t1")
        self.assertEqual(values["values"], {"plan": {"step": 2, "of": 5}, "note": "check budget"})
        self.assertEqual(c.list_working("t1", agent_id="planner", user_id="work-u1")["count"], 1)
        with self.assertRaises(loci.TooLarge):
            c.set_working("t1", "big", "x" * 60000, "planner")
        self.assertEqual(c.clear_working("t1", agent_id="planner", user_id="work-u1")["deleted"], 1)
        self.assertEqual(c.clear_working("t1")["deleted"], 1)
        with self.assertRaises(loci.NotFound):
            c.get_working("t1", "plan")

    def test_agent_scope(self):
        planner = self.client.agent("planner2")
        planner.set_working("t2", "plan", [1, 2, 3])
        self.assertEqual(planner.get_working("t2", "plan")["value"], [1, 2, 3])
        self.assertEqual(planner.list_working("t2")["values"], {"plan": [1, 2, 3]})
        self.assertEqual(planner.clear_working("t2")["deleted"], 1)


class TestEpisodes(Base):
    def test_episodes(self):
        c = self.client
        ep = c.record_episode(
            "ep-u1",
            "planner",
            "budget_split",
            "Split a 500K budget across search and social",
            "success",
            context={"budget": 500000},
            outcome_details={"note": "spot on"},
            confidence_score=0.9,
        )
        self.assertTrue(ep["id"])
        c.record_episode("ep-u1", "planner", "channel_mix", "Picked CTV and paid search", "partial")
        with self.assertRaises(loci.Invalid):
            c.record_episode("ep-u1", "planner", "x", "y", "maybe")

        found = c.search_episodes("ep-u1", "planner", "budget split", outcome="success", limit=5)
        self.assertEqual(found["results"][0]["id"], ep["id"])
        explained = c.search_episodes("ep-u1", "planner", "budget", explain=True)
        self.assertIn("explain", explained["results"][0])

        recent = c.recent_episodes("ep-u1", "planner")
        self.assertEqual(recent["count"], 2)
        only = c.recent_episodes("ep-u1", "planner", action_type="budget_split", outcome="success", limit=10, offset=0)
        self.assertEqual([e["id"] for e in only["episodes"]], [ep["id"]])

        fb = c.episode_feedback(ep["id"], rating=5, comment="spot on", corrections={"split": "60/40"})
        self.assertEqual(fb["id"], ep["id"])
        self.assertEqual(fb["user_feedback"]["rating"], 5)
        with self.assertRaises(loci.NotFound):
            c.episode_feedback("no-such-episode", rating=1)

        got = c.get_episode(ep["id"])
        self.assertEqual((got["id"], got["action_type"], got["user_feedback"]["rating"]), (ep["id"], "budget_split", 5))
        self.assertEqual(c.delete_episode(ep["id"]), {"success": True})
        with self.assertRaises(loci.NotFound):
            c.get_episode(ep["id"])
        with self.assertRaises(loci.NotFound):
            c.delete_episode(ep["id"])
        self.assertEqual(c.recent_episodes("ep-u1", "planner")["count"], 1)

    def test_user_scope(self):
        u = self.client.user("ep-u2")
        ep = u.record_episode("planner", "audit", "Audited the accounts", "failure", confidence_score=0.2)
        self.assertEqual(u.recent_episodes("planner")["episodes"][0]["id"], ep["id"])
        self.assertEqual(u.search_episodes("planner", "audited accounts")["results"][0]["id"], ep["id"])


class TestFacts(Base):
    def test_facts(self):
        c = self.client
        f = c.store_fact(
            "user_preference",
            "Prefers weekly summaries on Mondays",
            user_id="fact-u1",
            agent_id="writer",
            keywords=["summary", "monday"],
            evidence={"said": "Mondays please"},
        )
        self.assertEqual(f["relevance_score"], 1.0)
        g = c.store_fact("general_fact", "Weekly summaries are sent at 9am")
        with self.assertRaises(loci.Invalid):
            c.store_fact("Gossip!", "not a category")  # categories are open, but [a-z][a-z0-9_]*

        found = c.search_facts("weekly summary", user_id="fact-u1", include_global=True, limit=10)
        ids = [r["id"] for r in found["results"]]
        self.assertIn(f["id"], ids)
        self.assertIn(g["id"], ids)
        only_user = c.search_facts("weekly summary", user_id="fact-u1", category="user_preference", explain=True)
        self.assertEqual([r["id"] for r in only_user["results"]], [f["id"]])
        self.assertIn("explain", only_user["results"][0])

        listed = c.list_facts(user_id="fact-u1", keyword="monday")
        self.assertEqual([x["id"] for x in listed["facts"]], [f["id"]])
        self.assertGreaterEqual(listed["facts"][0]["access_count"], 1)

        contradicted = c.contradict_fact(f["id"])
        self.assertAlmostEqual(contradicted["relevance_score"], 0.8)
        self.assertEqual(contradicted["contradiction_count"], 1)
        validated = c.validate_fact(f["id"])
        self.assertAlmostEqual(validated["relevance_score"], 0.9)
        self.assertTrue(validated["is_validated"])
        with self.assertRaises(loci.NotFound):
            c.validate_fact("no-such-fact")

        self.assertEqual(c.get_fact(g["id"])["fact"], "Weekly summaries are sent at 9am")
        self.assertEqual(c.delete_fact(g["id"]), {"success": True})  # a global fact
        with self.assertRaises(loci.NotFound):
            c.get_fact(g["id"])
        with self.assertRaises(loci.NotFound):
            c.delete_fact(g["id"])

    def test_facts_over_time(self):
        c = self.client
        paris = c.store_fact(
            "general_fact",
            "Lives in Paris",
            user_id="time-u1",
            key="home_city",
            valid_at=datetime.datetime(2023, 5, 1),  # naive: taken as UTC
        )
        self.assertEqual((paris["key"], paris["valid_at"], paris["status"]), ("home_city", "2023-05-01T00:00:00Z", "current"))
        berlin = c.store_fact("general_fact", "Lives in Berlin", user_id="time-u1", key="home_city")
        self.assertEqual(berlin["supersedes"], paris["id"])

        old = c.get_fact(paris["id"])
        self.assertEqual((old["status"], old["superseded_by"]), ("superseded", berlin["id"]))
        self.assertEqual(old["invalid_at"], berlin["valid_at"])

        self.assertEqual([r["id"] for r in c.search_facts("lives", user_id="time-u1")["results"]], [berlin["id"]])
        then = c.search_facts("lives", user_id="time-u1", as_of="2024-01-01T00:00:00Z")
        self.assertEqual([r["id"] for r in then["results"]], [paris["id"]])
        every = c.search_facts("lives", user_id="time-u1", include_history=True)
        self.assertEqual(sorted(r["id"] for r in every["results"]), sorted([paris["id"], berlin["id"]]))

        self.assertEqual([f["id"] for f in c.list_facts(user_id="time-u1")["facts"]], [berlin["id"]])
        past = c.list_facts(user_id="time-u1", as_of=datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone.utc))
        self.assertEqual([f["id"] for f in past["facts"]], [paris["id"]])
        marked = c.list_facts(user_id="time-u1", include_history=True)
        self.assertEqual(
            sorted((f["fact"], f["status"]) for f in marked["facts"]), [("Lives in Berlin", "current"), ("Lives in Paris", "superseded")]
        )

        history = c.fact_history(paris["id"])
        self.assertEqual((history["count"], [f["id"] for f in history["facts"]]), (2, [berlin["id"], paris["id"]]))
        with self.assertRaises(loci.NotFound):
            c.fact_history("no-such-fact")

        mems = c.user_memories("time-u1")
        self.assertEqual([m["content"] for m in mems["memories"]["fact"]], ["Lives in Berlin"])
        then = c.user_memories("time-u1", as_of="2024-01-01T00:00:00Z")
        self.assertEqual([m["content"] for m in then["memories"]["fact"]], ["Lives in Paris"])
        self.assertEqual(len(c.user_memories("time-u1", include_history=True)["memories"]["fact"]), 2)

        ended = c.invalidate_fact(berlin["id"], at="2099-01-01T00:00:00Z")
        self.assertEqual((ended["invalid_at"], ended["status"]), ("2099-01-01T00:00:00Z", "current"))
        with self.assertRaises(loci.Invalid):
            c.invalidate_fact(berlin["id"], at="2000-01-01T00:00:00Z")  # before its valid_at
        with self.assertRaises(loci.Conflict):
            c.invalidate_fact(paris["id"])  # already ended
        self.assertEqual(c.invalidate_fact(berlin["id"])["status"], "invalidated")
        self.assertEqual(c.list_facts(user_id="time-u1")["count"], 0)
        with self.assertRaises(loci.NotFound):
            c.invalidate_fact("no-such-fact")

    def test_disputes_and_review(self):
        c = self.client
        f = c.store_fact("general_fact", "Works at Dunder Mifflin", user_id="rev-u1")
        g = c.store_fact("general_fact", "Drives a Chrysler Sebring", user_id="rev-u1")
        with self.assertRaises(loci.Conflict):
            c.resolve_fact(f["id"], True)  # not disputed
        c.contradict_fact(f["id"])
        c.contradict_fact(g["id"])
        disputed = c.list_facts(user_id="rev-u1", status="disputed")
        self.assertEqual(sorted(x["id"] for x in disputed["facts"]), sorted([f["id"], g["id"]]))
        self.assertEqual({x["status"] for x in disputed["facts"]}, {"disputed"})
        with self.assertRaises(loci.Invalid):
            c.list_facts(user_id="rev-u1", status="bogus")

        c.observe_preference("rev-u1", "tone", "formal", "explicit")
        c.contradict_preference("rev-u1", "tone", "explicit")
        c.observe_preference("rev-u1", "vertical", "Paper", "explicit")
        with self.assertRaises(loci.Conflict):
            c.resolve_preference("rev-u1", "vertical", True)  # not flagged
        c.contradict_preference("rev-u1", "vertical", "explicit")

        queue = c.review_queue("rev-u1")
        self.assertEqual(queue["count"], 4)
        self.assertEqual(
            sorted((x["kind"], x["reason"]) for x in queue["items"]),
            [("fact", "disputed")] * 2 + [("preference", "flagged_for_removal")] * 2,
        )
        self.assertEqual(len(c.review_queue("rev-u1", limit=1, offset=1)["items"]), 1)

        kept = c.resolve_fact(f["id"], True)
        self.assertEqual((kept["id"], kept["status"]), (f["id"], "current"))
        dropped = c.resolve_fact(g["id"], False)
        self.assertEqual(dropped["status"], "invalidated")
        self.assertIn("invalid_at", dropped)
        with self.assertRaises(loci.NotFound):
            c.resolve_fact("no-such-fact", True)

        stays = c.resolve_preference("rev-u1", "tone", True)
        self.assertEqual((stays["type"], stays["kept"], stays["flagged_for_removal"]), ("tone", True, False))
        gone = c.resolve_preference("rev-u1", "vertical", False)
        self.assertEqual((gone["type"], gone["kept"]), ("vertical", False))
        self.assertEqual([p["type"] for p in c.list_preferences("rev-u1")["preferences"]], ["tone"])
        with self.assertRaises(loci.NotFound):
            c.resolve_preference("rev-u1", "vertical", True)
        self.assertEqual(c.review_queue("rev-u1"), {"success": True, "count": 0, "items": []})

    def test_user_scope(self):
        u = self.client.user("fact-u2")
        f = u.store_fact("career_goal", "Wants to lead a data team", keywords=["data"])
        self.assertEqual(u.search_facts("data team")["results"][0]["id"], f["id"])
        self.assertEqual(u.list_facts(keyword="data")["count"], 1)


class TestPreferences(Base):
    def test_preferences(self):
        c = self.client
        p = c.observe_preference("pref-u1", "vertical", "Retail", "explicit")
        self.assertEqual((p["action"], p["confidence"], p["tier"]), ("created", 100, "high"))
        imp = c.observe_preference(
            "pref-u1", "channel_preference", ["Paid Search", "CTV"], "implicit", context="frequently selected"
        )
        self.assertEqual(imp["confidence"], 40)
        self.assertEqual(c.observe_preference("pref-u1", "channel_preference", ["Paid Search", "CTV"], "implicit")["confidence"], 55)
        self.assertEqual(c.use_preference("pref-u1", "channel_preference")["confidence"], 55)  # at its peak
        self.assertEqual(c.contradict_preference("pref-u1", "channel_preference", "implicit")["confidence"], 25)
        self.assertEqual(c.confirm_preference("pref-u1", "channel_preference")["confidence"], 100)
        c.observe_preference("pref-u1", "tone", "formal", "decision", session_id="pref-s1")
        with self.assertRaises(loci.Invalid):
            c.observe_preference("pref-u1", "tone", "formal", "rumour")
        with self.assertRaises(loci.NotFound):
            c.use_preference("pref-u1", "no_such_type")

        listed = c.list_preferences("pref-u1", limit=10, offset=0)
        self.assertEqual(sorted(x["type"] for x in listed["preferences"]), ["channel_preference", "tone", "vertical"])
        in_session = c.list_preferences("pref-u1", session_id="pref-s1")
        self.assertIn("tone", [x["type"] for x in in_session["preferences"]])
        self.assertEqual(c.use_preference("pref-u1", "tone", session_id="pref-s1")["type"], "tone")
        self.assertEqual(c.confirm_preference("pref-u1", "tone", session_id="pref-s1")["confidence"], 100)
        flagged = c.contradict_preference("pref-u1", "vertical", "explicit")
        self.assertTrue(flagged["flagged_for_removal"])

        ctx = c.user_context("pref-u1")
        self.assertEqual(ctx["user_id"], "pref-u1")
        self.assertIn("channel_preference", [x["type"] for x in ctx["preferences"]])
        self.assertTrue(c.user_context("pref-new")["created"])

        self.assertEqual(c.delete_preference("pref-u1", "channel_preference")["deleted"], 1)
        with self.assertRaises(loci.NotFound):
            c.delete_preference("pref-u1", "channel_preference")
        self.assertGreaterEqual(c.clear_preferences("pref-u1")["deleted"], 1)
        self.assertEqual(c.list_preferences("pref-u1")["count"], 0)

    def test_memories_forget_delete(self):
        c = self.client
        c.store_fact("user_preference", "Prefers weekly summaries on Mondays", user_id="priv-u1")
        c.observe_preference("priv-u1", "vertical", "Retail", "explicit")
        c.put_session("priv-s1", "priv-u1", summary="Quarterly plan")
        mems = c.user_memories("priv-u1")
        self.assertEqual(len(mems["memories"]["fact"]), 1)
        self.assertEqual(len(mems["memories"]["preference"]), 1)

        preview = c.forget_user_memories("priv-u1", query="weekly summaries", dry_run=True)
        self.assertTrue(preview["dry_run"])
        self.assertEqual(preview["count"], 1)
        self.assertEqual(len(c.user_memories("priv-u1")["memories"]["fact"]), 1)
        gone = c.forget_user_memories("priv-u1", ids=[d["id"] for d in preview["deleted"]])
        self.assertEqual(gone["count"], 1)
        self.assertEqual(len(c.user_memories("priv-u1")["memories"]["fact"]), 0)

        self.assertGreaterEqual(c.delete_user("priv-u1")["deleted"], 2)
        self.assertEqual(c.user_memories("priv-u1")["count"], 0)

    def test_user_scope(self):
        u = self.client.user("pref-u3")
        u.observe_preference("channel", "CTV", "implicit")
        u.use_preference("channel")
        u.confirm_preference("channel")
        self.assertEqual(u.contradict_preference("channel", "implicit")["confidence"], 70)
        self.assertEqual(u.list_preferences()["count"], 1)
        self.assertEqual(u.context()["preferences"][0]["type"], "channel")
        self.assertEqual(u.memories()["count"], 1)
        self.assertEqual(u.forget(query="CTV", dry_run=True)["count"], 1)
        u.observe_preference("tone", "casual", "explicit")
        self.assertEqual(u.delete_preference("tone")["deleted"], 1)
        self.assertEqual(u.clear_preferences()["deleted"], 1)
        u.observe_preference("tone", "casual", "explicit")
        u.contradict_preference("tone", "explicit")
        self.assertEqual(u.review_queue(limit=10)["items"][0]["type"], "tone")
        self.assertTrue(u.resolve_preference("tone", True)["kept"])
        self.assertEqual(u.review_queue()["count"], 0)
        u.store_fact("general_fact", "Owns a bobblehead", key="desk_item", valid_at="2020-01-01T00:00:00Z")
        u.store_fact("general_fact", "Owns a stapler", key="desk_item")
        self.assertEqual(len(u.memories(include_history=True)["memories"]["fact"]), 2)
        self.assertEqual(u.memories(as_of="2021-01-01T00:00:00Z")["memories"]["fact"][0]["content"], "Owns a bobblehead")
        self.assertEqual(u.delete()["deleted"], 3)


class TestSearch(Base):
    def test_search(self):
        c = self.client
        c.add_passage("search-a", "That time Michael grilled his foot", tags=["episode"])
        c.remember("search-a", "grill", "The foot grill is in the break room")
        c.store_fact("user_preference", "Likes a budget review on Fridays", user_id="search-u1")

        res = c.search("grilled foot", agent_id="search-a", explain=True)
        self.assertGreaterEqual(res["count"], 2)
        self.assertIn("explain", res["results"][0])
        self.assertIn("pending_embeddings", res)
        only = c.search("grilled foot", agent_id="search-a", kinds=["passage"], tags=["episode"], limit=5)
        self.assertEqual([r["kind"] for r in only["results"]], ["passage"])
        self.assertEqual(c.search("budget", user_id="search-u1")["results"][0]["kind"], "fact")
        self.assertEqual(c.search("grilled", agent_id="search-a", session_id="none")["count"], 0)
        with self.assertRaises(loci.Invalid):
            c.search("   ")

    def test_scopes(self):
        a = self.client.agent("search-b")
        a.add_passage("Pretzel day")
        self.assertEqual(a.search("pretzel")["results"][0]["kind"], "passage")
        u = self.client.user("search-u2")
        u.store_fact("general_fact", "Pretzels are salty")
        self.assertEqual(u.search("pretzels", kinds=["fact"])["count"], 1)


class TestOverview(Base):
    """Users, stats, the timeline and whoami, on a workspace of their own users and agents."""

    def test_list_users(self):
        c = self.client
        c.user_context("ov-ann")  # registers the user
        c.store_fact("general_fact", "Ann likes tea", user_id="ov-anna")
        users = c.list_users(q="OV-ANN", limit=50)
        self.assertEqual(sorted(u["user_id"] for u in users["users"]), ["ov-ann", "ov-anna"])
        self.assertEqual(users["count"], 2)
        anna = [u for u in users["users"] if u["user_id"] == "ov-anna"][0]
        self.assertEqual(anna["memories"], 1)
        self.assertEqual(len(c.list_users(q="ov-ann", limit=1, offset=1)["users"]), 1)
        self.assertEqual(c.list_users(q="nobody-has-this-id")["count"], 0)
        with self.assertRaises(loci.Invalid):
            c.list_users(limit=100000)

    def test_stats(self):
        c = self.client
        c.remember("ov-agent", "k", "v")
        c.add_passage("ov-agent", "A passage about the warehouse")
        c.store_fact("general_fact", "Bob works in the warehouse", user_id="ov-bob")
        whole = c.stats()
        self.assertGreaterEqual(whole["total"], 3)
        self.assertEqual(len(whole["growth"]), 30)
        mine = c.stats(agent_id="ov-agent", days=2, top=1)
        # The agent's first write gave it the three standard blocks.
        self.assertEqual(mine["kinds"], dict(note=1, passage=1, block=3, working=0, episode=0, fact=0, preference=0, session=0))
        self.assertEqual((mine["agent_id"], mine["total"]), ("ov-agent", 5))
        self.assertEqual(len(mine["growth"]), 2)
        self.assertEqual(mine["top_agents"], [{"id": "ov-agent", "count": 5}])
        self.assertIn("pending", mine["embeddings"])
        self.assertEqual(c.stats(user_id="ov-bob")["kinds"]["fact"], 1)
        self.assertEqual(c.agent("ov-agent").stats(days=1)["total"], 5)
        self.assertEqual(c.user("ov-bob").stats()["total"], 1)
        with self.assertRaises(loci.Invalid):
            c.stats(days=0)
        with self.assertRaises(loci.Invalid):
            c.stats(top=101)

    def test_timeline(self):
        c = self.client
        c.remember("ov-tl", "first", "one")
        c.add_passage("ov-tl", "two")
        c.store_fact("general_fact", "three", user_id="ov-tl-u", agent_id="ov-tl")
        everything = c.list_memories(agent_id="ov-tl")
        # Newest first; the agent's first write gave it the three standard blocks.
        self.assertEqual([m["kind"] for m in everything["memories"]], ["fact", "passage", "block", "block", "block", "note"])
        self.assertEqual(everything["count"], 6)
        self.assertEqual([m["kind"] for m in c.list_memories(agent_id="ov-tl", kind="passage")["memories"]], ["passage"])
        two = c.list_memories(agent_id="ov-tl", kind=["note", "fact"])
        self.assertEqual([m["kind"] for m in two["memories"]], ["fact", "note"])
        self.assertEqual(c.list_memories(agent_id="ov-tl", limit=1, offset=5)["memories"][0]["kind"], "note")
        created = everything["memories"][1]["created_at"]  # the passage's
        earlier = c.list_memories(agent_id="ov-tl", before=created)
        self.assertEqual([m["kind"] for m in earlier["memories"]], ["block", "block", "block", "note"])
        self.assertEqual([m["kind"] for m in c.list_memories(agent_id="ov-tl", after=created)["memories"]], ["fact"])
        future = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(days=1)
        self.assertEqual(c.list_memories(agent_id="ov-tl", after=future)["count"], 0)
        self.assertEqual(c.list_memories(user_id="ov-tl-u")["memories"][0]["content"], "three")
        self.assertEqual(c.list_memories(agent_id="ov-tl", session_id="none", task_id="none")["count"], 0)
        self.assertEqual(c.agent("ov-tl").list_memories(kind="note")["count"], 1)
        self.assertEqual(c.user("ov-tl-u").list_memories()["count"], 1)
        with self.assertRaises(loci.Invalid):
            c.list_memories(kind="gossip")

    def test_whoami(self):
        me = self.client.whoami()
        self.assertEqual((me["auth"], me["key_id"], me["role"], me["agent_id"]), (False, "", "admin", ""))
        self.assertTrue(me["workspace"])


class TestAdmin(Base):
    def test_maintenance_export_import_audit(self):
        c = self.client
        rep = c.maintain(tasks=["decay", "prune"], dry_run=True)
        self.assertTrue(rep["dry_run"])
        self.assertEqual(sorted(rep["tasks"]), ["decay", "prune"])
        self.assertEqual(sorted(c.maintain()["tasks"]), ["consolidate", "decay", "expire", "prune"])

        c.remember("admin-a", "k", "exported")
        c.store_fact("general_fact", "An exported fact", user_id="admin-u1")
        self.assertIn('"exported"', c.export())
        dump = c.export(user_id="admin-u1")
        self.assertEqual([json.loads(line)["kind"] for line in dump.splitlines() if '"kind"' in line], ["fact"])
        c.delete_user("admin-u1")
        self.assertEqual(c.user_memories("admin-u1")["count"], 0)
        imported = c.import_jsonl(dump)
        self.assertEqual(imported["records"], 1)
        self.assertEqual(c.user_memories("admin-u1")["memories"]["fact"][0]["content"], "An exported fact")
        # The same import again skips what is there (a re-run after a
        # failure in the middle); a record present with other content is
        # a conflict.
        self.assertEqual(c.import_jsonl(dump.encode())["skipped"], 1)
        with self.assertRaises(loci.Conflict):
            c.import_jsonl(dump.replace('"version":1,', '"version":9,', 1))

        entries = c.audit(agent_id="admin-a", limit=50)
        self.assertGreater(entries["count"], 0)
        since = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(days=1)
        self.assertEqual(c.audit(since=since)["count"], 0)
        self.assertGreaterEqual(c.audit(operation="note.remember", limit=5, offset=0)["count"], 1)


class TestKeys(unittest.TestCase):
    """Keys turn authentication on, so they get a server of their own."""

    def test_keys(self):
        srv = Server()
        admin_key = srv.create_key("admin")
        srv.start()
        try:
            admin = loci.Client(srv.url, api_key=admin_key)
            made = admin.create_key("viewer", name="dashboard")
            self.assertTrue(made["api_key"].startswith("loci_"))
            bound = admin.create_key("editor", agent_id="writer")
            self.assertEqual(bound["agent_id"], "writer")
            keys = admin.list_keys()
            self.assertEqual(keys["count"], 3)
            audit = admin.audit(key_id=made["id"])
            self.assertEqual(audit["count"], 0)
            admin.revoke_key(made["id"])
            with self.assertRaises(loci.Unauthorized):
                loci.Client(srv.url, api_key=made["api_key"]).recall_all("writer")
            with self.assertRaises(loci.NotFound):
                admin.revoke_key("no-such-key")
            writer = loci.Client(srv.url, api_key=bound["api_key"]).agent("writer")
            writer.remember("tone", "friendly")
            with self.assertRaises(loci.Forbidden):
                loci.Client(srv.url, api_key=bound["api_key"]).remember("other", "tone", "x")

            me = writer.client.whoami()
            self.assertEqual((me["auth"], me["key_id"], me["role"], me["agent_id"]), (True, bound["id"], "editor", "writer"))
            self.assertEqual(admin.whoami()["role"], "admin")
            self.assertEqual(writer.stats()["kinds"]["note"], 1)  # a bound key names its agent
            self.assertEqual(writer.list_memories(kind="note")["count"], 1)
            with self.assertRaises(loci.Forbidden):
                writer.client.stats()
            with self.assertRaises(loci.Forbidden):
                writer.client.list_users()
            with self.assertRaises(loci.Unauthorized):
                loci.Client(srv.url).whoami()
        finally:
            srv.stop()


if __name__ == "__main__":
    unittest.main()
