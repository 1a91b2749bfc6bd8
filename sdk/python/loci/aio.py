"""The asyncio client: :class:`AsyncClient` has every method of
:class:`loci.Client`, with the same arguments and answers, as coroutines.

    import asyncio, loci

    async def main():
        client = loci.AsyncClient()
        ev = await client.add_memory("Likes green tea", user_id="alice")
        print((await client.get_memory(ev["id"]))["content"])

    asyncio.run(main())

Do not edit: generated from loci/client.py by ``python3 tools/gen_aio.py``
in sdk/python (``make sdk-gen``).
"""

import json
from typing import Any, Optional, Sequence, Union

from . import types as t
from .client import UNSET, Time, _AsyncClientBase, _fields, _op_times, _path, _time

__all__ = ["AsyncClient", "AsyncAgentClient", "AsyncUserClient"]


class AsyncClient(_AsyncClientBase):
    """A client of one loci server for asyncio: the methods of :class:`loci.Client`,
    each a coroutine, with the same arguments, settings and retry rules.

    Each HTTP exchange runs in a worker thread (:func:`asyncio.to_thread`, the
    event loop's default executor) through the same urllib transport as
    :class:`loci.Client`, so TLS, proxies, timeouts and errors behave alike; the
    waits between retries are :func:`asyncio.sleep`, so they never block the
    loop and a cancelled call stops waiting at once. A call cancelled while its
    exchange is in flight stops being awaited, and the exchange itself ends in
    its thread (within ``timeout``). As many calls run at once as the default
    executor has threads.
    """

    # Scoped helpers.

    def agent(self, agent_id: str) -> "AsyncAgentClient":
        """The operations on one agent's memory, without repeating its id."""
        return AsyncAgentClient(self, agent_id)

    def user(self, user_id: str) -> "AsyncUserClient":
        """The operations on one user's memory, without repeating their id."""
        return AsyncUserClient(self, user_id)

    # Health.

    async def health(self) -> t.HealthResponse:
        """GET /healthz: the process is alive."""
        return await self._request("GET", "/healthz")

    async def ready(self) -> t.ReadyResponse:
        """GET /readyz: storage is reachable (raises Unavailable or ServerError when not)."""
        return await self._request("GET", "/readyz")

    # Notes: an agent's key-value memories.

    async def remember(self, agent_id: str, key: str, value: Any) -> t.RememberResponse:
        """Store a note (a string or any JSON) under key; ``action`` is ``created`` or ``updated``."""
        return await self._request("PUT", _path("/v1/agents/{}/notes/{}", agent_id, key), body={"value": value})

    async def recall(self, agent_id: str, key: str) -> t.RecallResponse:
        """One note; NotFound ("Memory not found") when absent."""
        return await self._request("GET", _path("/v1/agents/{}/notes/{}", agent_id, key))

    async def recall_all(self, agent_id: str, *, limit: Optional[int] = None, offset: Optional[int] = None) -> t.RecallAllResponse:
        """The agent's notes: ``count`` and ``memories``."""
        return await self._request("GET", _path("/v1/agents/{}/notes", agent_id), query=_fields(limit=limit, offset=offset))

    async def forget(self, agent_id: str, key: str) -> t.ForgetResponse:
        """Delete a note; NotFound when absent."""
        return await self._request("DELETE", _path("/v1/agents/{}/notes/{}", agent_id, key))

    async def note_history(self, agent_id: str, key: str) -> t.NoteHistoryResponse:
        """Every value the note has had, the current one first (``versions``)."""
        return await self._request("GET", _path("/v1/agents/{}/notes/{}/history", agent_id, key))

    # Agents and core memory blocks.

    async def create_agent(
        self, agent_id: str, *, name: Optional[str] = None, blocks: Optional[Sequence[t.BlockSpec]] = None
    ) -> t.CreateAgentResponse:
        """Create an agent (Conflict if it exists); without ``blocks`` it gets the three standard empty blocks."""
        body = _fields(id=agent_id, name=name, blocks=list(blocks) if blocks is not None else None)
        return await self._request("POST", "/v1/agents", body=body)

    async def list_agents(self, *, limit: Optional[int] = None, offset: Optional[int] = None) -> t.ListAgentsResponse:
        """Every agent: ``count`` and ``agents``."""
        return await self._request("GET", "/v1/agents", query=_fields(limit=limit, offset=offset))

    async def get_agent(self, agent_id: str) -> t.GetAgentResponse:
        """One agent; NotFound when absent."""
        return await self._request("GET", _path("/v1/agents/{}", agent_id))

    async def delete_agent(self, agent_id: str) -> t.DeleteAgentResponse:
        """Delete an agent and everything it owns; NotFound when absent."""
        return await self._request("DELETE", _path("/v1/agents/{}", agent_id))

    async def list_blocks(self, agent_id: str) -> t.ListBlocksResponse:
        """The agent's blocks, owned and attached shared ones."""
        return await self._request("GET", _path("/v1/agents/{}/blocks", agent_id))

    async def get_block(self, agent_id: str, label: str) -> t.GetBlockResponse:
        """One block by label; NotFound when none."""
        return await self._request("GET", _path("/v1/agents/{}/blocks/{}", agent_id, label))

    async def block_history(self, agent_id: str, label: str) -> t.BlockHistoryResponse:
        """Every content the block has had, the current one first (``versions``); NotFound when none."""
        return await self._request("GET", _path("/v1/agents/{}/blocks/{}/history", agent_id, label))

    async def set_block(
        self,
        agent_id: str,
        label: str,
        content: str,
        *,
        expected_version: Optional[int] = None,
        limit: Optional[int] = None,
    ) -> t.SetBlockResponse:
        """Create or replace a block. With ``expected_version`` it is a compare-and-set
        (Conflict when stale; 0: only if it does not exist yet); TooLarge over the block's limit."""
        body = _fields(content=content, expected_version=expected_version, limit=limit)
        return await self._request("PUT", _path("/v1/agents/{}/blocks/{}", agent_id, label), body=body)

    async def create_block(
        self, agent_id: str, label: str, content: str, *, shared: bool = False, limit: Optional[int] = None
    ) -> t.CreateBlockResponse:
        """Create a block (Conflict if the label is taken); ``shared=True`` makes one other agents can be attached to."""
        body = _fields(label=label, content=content, shared=shared, limit=limit)
        return await self._request("POST", _path("/v1/agents/{}/blocks", agent_id), body=body)

    async def attach_block(self, block_id: str, agent_id: str) -> t.AttachBlockResponse:
        """Attach a shared block to another agent (idempotent)."""
        return await self._request("PUT", _path("/v1/blocks/{}/consumers/{}", block_id, agent_id))

    async def detach_block(self, block_id: str, agent_id: str) -> t.DetachBlockResponse:
        """Detach a shared block from an agent; NotFound if it is not attached."""
        return await self._request("DELETE", _path("/v1/blocks/{}/consumers/{}", block_id, agent_id))

    async def list_block_consumers(self, block_id: str) -> t.ListBlockConsumersResponse:
        """The agents a shared block is attached to (``consumers``)."""
        return await self._request("GET", _path("/v1/blocks/{}/consumers", block_id))

    async def prompt(self, agent_id: str) -> str:
        """The agent's core memory rendered as text: every block as ``### {label}\\n{content}``."""
        return await self._request("GET", _path("/v1/agents/{}/prompt", agent_id), text=True)

    # Archival passages.

    async def add_passage(self, agent_id: str, content: str, *, tags: Optional[Sequence[str]] = None) -> t.AddPassageResponse:
        """Store an archival passage; answers its ``id``."""
        body = _fields(content=content, tags=list(tags) if tags is not None else None)
        return await self._request("POST", _path("/v1/agents/{}/passages", agent_id), body=body)

    async def list_passages(
        self, agent_id: str, *, tag: Optional[str] = None, limit: Optional[int] = None, offset: Optional[int] = None
    ) -> t.ListPassagesResponse:
        """The agent's passages, newest first."""
        query = _fields(tag=tag, limit=limit, offset=offset)
        return await self._request("GET", _path("/v1/agents/{}/passages", agent_id), query=query)

    async def search_passages(
        self,
        agent_id: str,
        q: str,
        *,
        tag: Optional[str] = None,
        limit: Optional[int] = None,
        explain: Optional[bool] = None,
    ) -> t.SearchPassagesResponse:
        """Ranked passages (``results``, each with a ``score``)."""
        query = _fields(q=q, tag=tag, limit=limit, explain=explain)
        return await self._request("GET", _path("/v1/agents/{}/passages/search", agent_id), query=query)

    async def delete_passage(self, agent_id: str, passage_id: str) -> t.DeletePassageResponse:
        """Delete a passage; NotFound when absent."""
        return await self._request("DELETE", _path("/v1/agents/{}/passages/{}", agent_id, passage_id))

    # Sessions and conversations.

    async def put_session(
        self,
        session_id: str,
        user_id: str,
        *,
        context: Any = None,
        summary: Optional[str] = None,
        messages: Optional[Sequence[t.Message]] = None,
        is_persistent: Optional[bool] = None,
        expires_at: Optional[Time] = None,
        confidence: Optional[float] = None,
    ) -> t.PutSessionResponse:
        """Store or replace a session (Conflict if the id is another user's)."""
        body = _fields(
            user_id=user_id,
            context=context,
            summary=summary,
            messages=list(messages) if messages is not None else None,
            is_persistent=is_persistent,
            expires_at=_time(expires_at),
            confidence=confidence,
        )
        return await self._request("PUT", _path("/v1/sessions/{}", session_id), body=body)

    async def append_message(self, session_id: str, role: str, content: str) -> t.AppendMessageResponse:
        """Append one message to a session; NotFound when the session does not exist."""
        body = {"role": role, "content": content}
        return await self._request("POST", _path("/v1/sessions/{}/messages", session_id), body=body)

    async def get_session(self, session_id: str) -> t.GetSessionResponse:
        """A session with its messages, in order; NotFound when absent."""
        return await self._request("GET", _path("/v1/sessions/{}", session_id))

    async def delete_session(self, session_id: str) -> t.DeleteSessionResponse:
        """Delete a session; ``deleted`` says whether it existed."""
        return await self._request("DELETE", _path("/v1/sessions/{}", session_id))

    async def list_sessions(
        self, user_id: str, *, limit: Optional[int] = None, offset: Optional[int] = None
    ) -> t.ListUserSessionsResponse:
        """The user's sessions, metadata only, newest first."""
        query = _fields(limit=limit, offset=offset)
        return await self._request("GET", _path("/v1/users/{}/sessions", user_id), query=query)

    # Working memory: a task's scratchpad.

    async def set_working(
        self, task_id: str, key: str, value: Any, agent_id: str, *, user_id: Optional[str] = None
    ) -> t.SetWorkingResponse:
        """Set a value (any JSON); TooLarge when the task's values would pass 50 KB."""
        body = _fields(value=value, agent_id=agent_id, user_id=user_id)
        return await self._request("PUT", _path("/v1/tasks/{}/working/{}", task_id, key), body=body)

    async def get_working(
        self, task_id: str, key: str, *, agent_id: Optional[str] = None, user_id: Optional[str] = None
    ) -> t.GetWorkingResponse:
        """One value; NotFound when absent or expired."""
        query = _fields(agent_id=agent_id, user_id=user_id)
        return await self._request("GET", _path("/v1/tasks/{}/working/{}", task_id, key), query=query)

    async def list_working(
        self, task_id: str, *, agent_id: Optional[str] = None, user_id: Optional[str] = None
    ) -> t.ListWorkingResponse:
        """The task's values as one object (``values``), and the entries (``working``)."""
        query = _fields(agent_id=agent_id, user_id=user_id)
        return await self._request("GET", _path("/v1/tasks/{}/working", task_id), query=query)

    async def delete_working(
        self, task_id: str, key: str, *, agent_id: Optional[str] = None, user_id: Optional[str] = None
    ) -> t.DeleteWorkingResponse:
        """Delete one value of the task; NotFound when absent or expired."""
        query = _fields(agent_id=agent_id, user_id=user_id)
        return await self._request("DELETE", _path("/v1/tasks/{}/working/{}", task_id, key), query=query)

    async def clear_working(
        self, task_id: str, *, agent_id: Optional[str] = None, user_id: Optional[str] = None
    ) -> t.ClearWorkingResponse:
        """Delete the task's values; ``deleted`` counts them."""
        query = _fields(agent_id=agent_id, user_id=user_id)
        return await self._request("DELETE", _path("/v1/tasks/{}/working", task_id), query=query)

    # Episodes: what an agent did for a user and how it went.

    async def record_episode(
        self,
        user_id: str,
        agent_id: str,
        action_type: str,
        action_description: str,
        outcome: t.Outcome,
        *,
        context: Any = None,
        outcome_details: Any = None,
        confidence_score: Optional[float] = None,
    ) -> t.RecordEpisodeResponse:
        """Record an episode; ``outcome`` is ``success``, ``partial`` or ``failure``."""
        body = _fields(
            user_id=user_id,
            agent_id=agent_id,
            action_type=action_type,
            action_description=action_description,
            outcome=outcome,
            context=context,
            outcome_details=outcome_details,
            confidence_score=confidence_score,
        )
        return await self._request("POST", "/v1/episodes", body=body)

    async def search_episodes(
        self,
        user_id: str,
        agent_id: str,
        q: str,
        *,
        action_type: Optional[str] = None,
        outcome: Optional[t.Outcome] = None,
        limit: Optional[int] = None,
        explain: Optional[bool] = None,
    ) -> t.SearchEpisodesResponse:
        """The user and agent's past episodes most like ``q``, best first, unexpired only."""
        query = _fields(
            q=q, user_id=user_id, agent_id=agent_id, action_type=action_type, outcome=outcome, limit=limit, explain=explain
        )
        return await self._request("GET", "/v1/episodes/search", query=query)

    async def recent_episodes(
        self,
        user_id: str,
        agent_id: str,
        *,
        action_type: Optional[str] = None,
        outcome: Optional[t.Outcome] = None,
        limit: Optional[int] = None,
        offset: Optional[int] = None,
    ) -> t.RecentEpisodesResponse:
        """The user and agent's recent episodes, newest first."""
        query = _fields(user_id=user_id, agent_id=agent_id, action_type=action_type, outcome=outcome, limit=limit, offset=offset)
        return await self._request("GET", "/v1/episodes", query=query)

    async def episode_feedback(
        self, episode_id: str, *, rating: Optional[int] = None, comment: Optional[str] = None, corrections: Any = None
    ) -> t.EpisodeFeedbackResponse:
        """Attach a user's feedback to an episode; answers the episode."""
        body = _fields(rating=rating, comment=comment, corrections=corrections)
        return await self._request("POST", _path("/v1/episodes/{}/feedback", episode_id), body=body)

    async def get_episode(self, episode_id: str) -> t.GetEpisodeResponse:
        """One episode; NotFound when absent or expired."""
        return await self._request("GET", _path("/v1/episodes/{}", episode_id))

    async def delete_episode(self, episode_id: str) -> t.DeleteEpisodeResponse:
        """Delete an episode, expired or not; NotFound when absent."""
        return await self._request("DELETE", _path("/v1/episodes/{}", episode_id))

    # Facts: long-term knowledge, a user's or global.

    async def store_fact(
        self,
        category: t.FactCategory,
        fact: str,
        *,
        user_id: Optional[str] = None,
        agent_id: Optional[str] = None,
        keywords: Optional[Sequence[str]] = None,
        evidence: Any = None,
        key: Optional[str] = None,
        valid_at: Optional[Time] = None,
    ) -> t.StoreFactResponse:
        """Store a fact; without ``user_id`` it is global. With a ``key`` (a slot such as
        ``home_city``) it supersedes the fact of that key true at ``valid_at`` (default now),
        which is kept as history (``supersedes`` names it)."""
        body = _fields(
            category=category,
            fact=fact,
            user_id=user_id,
            agent_id=agent_id,
            keywords=list(keywords) if keywords is not None else None,
            evidence=evidence,
            key=key,
            valid_at=_time(valid_at),
        )
        return await self._request("POST", "/v1/facts", body=body)

    async def search_facts(
        self,
        q: str,
        *,
        user_id: Optional[str] = None,
        category: Optional[t.FactCategory] = None,
        include_global: Optional[bool] = None,
        as_of: Optional[Time] = None,
        include_history: Optional[bool] = None,
        limit: Optional[int] = None,
        explain: Optional[bool] = None,
    ) -> t.SearchFactsResponse:
        """Ranked facts true at ``as_of`` (default now; ``include_history=True``: every version);
        each access counts (``access_count``, ``last_accessed_at``)."""
        query = _fields(
            q=q,
            user_id=user_id,
            category=category,
            include_global=include_global,
            as_of=_time(as_of),
            include_history=include_history,
            limit=limit,
            explain=explain,
        )
        return await self._request("GET", "/v1/facts/search", query=query)

    async def list_facts(
        self,
        *,
        user_id: Optional[str] = None,
        keyword: Optional[str] = None,
        category: Optional[t.FactCategory] = None,
        include_global: Optional[bool] = None,
        as_of: Optional[Time] = None,
        include_history: Optional[bool] = None,
        status: Optional[str] = None,
        limit: Optional[int] = None,
        offset: Optional[int] = None,
    ) -> t.FactsByKeywordResponse:
        """Facts with a keyword (and/or of a category), by relevance; without ``keyword``, every fact
        in scope. Those true at ``as_of`` (default now), every version with ``include_history=True``;
        ``status="disputed"``: only facts contradicted and not yet resolved."""
        query = _fields(
            user_id=user_id,
            keyword=keyword,
            category=category,
            include_global=include_global,
            as_of=_time(as_of),
            include_history=include_history,
            status=status,
            limit=limit,
            offset=offset,
        )
        return await self._request("GET", "/v1/facts", query=query)

    async def get_fact(self, fact_id: str) -> t.GetFactResponse:
        """One fact, whatever its status (history included); not counted as an access. NotFound when absent."""
        return await self._request("GET", _path("/v1/facts/{}", fact_id))

    async def delete_fact(self, fact_id: str) -> t.DeleteFactResponse:
        """Delete one fact, global ones too (editor); NotFound when absent."""
        return await self._request("DELETE", _path("/v1/facts/{}", fact_id))

    async def fact_history(self, fact_id: str) -> t.FactHistoryResponse:
        """Every version of the fact's key in its slot, newest ``valid_at`` first (``facts``)."""
        return await self._request("GET", _path("/v1/facts/{}/history", fact_id))

    async def invalidate_fact(self, fact_id: str, *, at: Optional[Time] = None) -> t.InvalidateFactResponse:
        """No longer true from ``at`` (default now), kept as history; Invalid when ``at`` is before its
        ``valid_at``, Conflict when it had already ended. Answers the fact."""
        return await self._request("POST", _path("/v1/facts/{}/invalidate", fact_id), body=_fields(at=_time(at)))

    async def resolve_fact(self, fact_id: str, keep: bool) -> t.ResolveFactResponse:
        """Settle a disputed fact: ``keep=True`` clears the dispute, ``False`` invalidates it now
        (kept as history); Conflict when it is not disputed. Answers the fact."""
        return await self._request("POST", _path("/v1/facts/{}/resolve", fact_id), body={"keep": keep})

    async def validate_fact(self, fact_id: str) -> t.ValidateFactResponse:
        """Relevance +0.1 (at most 1.0) and validated; answers the fact."""
        return await self._request("POST", _path("/v1/facts/{}/validate", fact_id))

    async def contradict_fact(self, fact_id: str) -> t.ContradictFactResponse:
        """Relevance -0.2 (at least 0.0) and one more contradiction; answers the fact."""
        return await self._request("POST", _path("/v1/facts/{}/contradict", fact_id))

    # Preferences, session start and privacy.

    async def observe_preference(
        self,
        user_id: str,
        type: str,
        value: Any,
        source: t.PreferenceSource,
        *,
        session_id: Optional[str] = None,
        context: Optional[str] = None,
    ) -> t.ObservePreferenceResponse:
        """Observe a preference: ``explicit`` sets 100, ``implicit`` starts at 40 (+15 a repeat, at most 85),
        ``decision`` is kept with its session."""
        body = _fields(type=type, value=value, source=source, session_id=session_id, context=context)
        return await self._request("POST", _path("/v1/users/{}/preferences", user_id), body=body)

    async def list_preferences(
        self,
        user_id: str,
        *,
        session_id: Optional[str] = None,
        limit: Optional[int] = None,
        offset: Optional[int] = None,
    ) -> t.ListPreferencesResponse:
        """The user's preferences with their effective confidence and tier."""
        query = _fields(session_id=session_id, limit=limit, offset=offset)
        return await self._request("GET", _path("/v1/users/{}/preferences", user_id), query=query)

    async def use_preference(self, user_id: str, type: str, *, session_id: Optional[str] = None) -> t.UsePreferenceResponse:
        """The preference was applied: +5 up to its peak."""
        return await self._request(
            "POST", _path("/v1/users/{}/preferences/{}/use", user_id, type), query=_fields(session_id=session_id)
        )

    async def confirm_preference(
        self, user_id: str, type: str, *, session_id: Optional[str] = None
    ) -> t.ConfirmPreferenceResponse:
        """The user confirmed the preference: 100."""
        return await self._request(
            "POST", _path("/v1/users/{}/preferences/{}/confirm", user_id, type), query=_fields(session_id=session_id)
        )

    async def contradict_preference(
        self, user_id: str, type: str, source: t.PreferenceSource, *, session_id: Optional[str] = None
    ) -> t.ContradictPreferenceResponse:
        """The user contradicted it: -30 (``implicit``), or 0 and flagged for removal (``explicit``)."""
        return await self._request(
            "POST",
            _path("/v1/users/{}/preferences/{}/contradict", user_id, type),
            query=_fields(session_id=session_id),
            body={"source": source},
        )

    async def resolve_preference(
        self, user_id: str, type: str, keep: bool, *, session_id: Optional[str] = None
    ) -> t.ResolvePreferenceResponse:
        """Settle a preference flagged for removal: ``keep=True`` clears the flag, ``False`` forgets it;
        Conflict when it is not flagged. Answers the preference with ``kept``."""
        return await self._request(
            "POST",
            _path("/v1/users/{}/preferences/{}/resolve", user_id, type),
            query=_fields(session_id=session_id),
            body={"keep": keep},
        )

    async def delete_preference(self, user_id: str, type: str) -> t.DeletePreferenceResponse:
        """Forget one preference; NotFound when absent."""
        return await self._request("DELETE", _path("/v1/users/{}/preferences/{}", user_id, type))

    async def clear_preferences(self, user_id: str) -> t.ClearPreferencesResponse:
        """Forget every preference of the user; ``deleted`` counts them."""
        return await self._request("DELETE", _path("/v1/users/{}/preferences", user_id))

    async def user_context(self, user_id: str) -> t.UserContextResponse:
        """Session start: the preferences to apply and the last 5 live sessions (creates the user if new)."""
        return await self._request("GET", _path("/v1/users/{}/context", user_id))

    async def user_memories(
        self, user_id: str, *, as_of: Optional[Time] = None, include_history: Optional[bool] = None
    ) -> t.UserMemoriesResponse:
        """"What do you remember about me": everything about the user, by kind; facts true at
        ``as_of`` (default now), or every version with ``include_history=True``."""
        query = _fields(as_of=_time(as_of), include_history=include_history)
        return await self._request("GET", _path("/v1/users/{}/memories", user_id), query=query)

    async def review_queue(
        self, user_id: str, *, limit: Optional[int] = None, offset: Optional[int] = None
    ) -> t.ReviewQueueResponse:
        """What waits for a person: the user's disputed facts and preferences flagged for removal,
        each with ``kind`` and ``reason``, most recently changed first (``items``)."""
        query = _fields(limit=limit, offset=offset)
        return await self._request("GET", _path("/v1/users/{}/review", user_id), query=query)

    async def forget_user_memories(
        self,
        user_id: str,
        *,
        query: Optional[str] = None,
        ids: Optional[Sequence[str]] = None,
        dry_run: Optional[bool] = None,
    ) -> t.ForgetUserMemoriesResponse:
        """"Forget that I said X": delete what matches ``query`` (or the ``ids``); ``dry_run`` only shows it."""
        body = _fields(query=query, ids=list(ids) if ids is not None else None, dry_run=dry_run)
        return await self._request("POST", _path("/v1/users/{}/forget", user_id), body=body)

    async def delete_user(self, user_id: str) -> t.DeleteUserResponse:
        """Delete everything about the user, at once."""
        return await self._request("DELETE", _path("/v1/users/{}", user_id))

    # Overview: users, stats, timeline, the caller.

    async def list_users(
        self, *, q: Optional[str] = None, limit: Optional[int] = None, offset: Optional[int] = None
    ) -> t.ListUsersResponse:
        """Every user of the workspace (registered or named by a record), newest first; ``q``
        matches part of the id, ignoring case."""
        return await self._request("GET", "/v1/users", query=_fields(q=q, limit=limit, offset=offset))

    async def stats(
        self,
        *,
        agent_id: Optional[str] = None,
        user_id: Optional[str] = None,
        top: Optional[int] = None,
        days: Optional[int] = None,
    ) -> t.StatsResponse:
        """Counts per kind, agent and user, growth per day (``days``), the newest records and the
        embedding queue, of the workspace or of the agent and/or user named."""
        query = _fields(agent_id=agent_id, user_id=user_id, top=top, days=days)
        return await self._request("GET", "/v1/stats", query=query)

    async def list_memories(
        self,
        *,
        agent_id: Optional[str] = None,
        user_id: Optional[str] = None,
        session_id: Optional[str] = None,
        task_id: Optional[str] = None,
        kind: Union[t.Kind, Sequence[t.Kind], None] = None,
        before: Optional[Time] = None,
        after: Optional[Time] = None,
        filters: Union[t.MemoryFilter, str, None] = None,
        limit: Optional[int] = None,
        offset: Optional[int] = None,
    ) -> t.ListMemoriesResponse:
        """A timeline: the records in scope of every kind (or of ``kind``, one or several),
        newest first, created between ``after`` and ``before``; ``filters`` (a dict of the
        filter language, e.g. ``{"metadata.topic": {"in": ["travel", "food"]}}``, or its JSON
        text) narrows them before paging (Invalid for an unknown field or operator)."""
        query = _fields(
            agent_id=agent_id,
            user_id=user_id,
            session_id=session_id,
            task_id=task_id,
            kind=[kind] if isinstance(kind, str) else kind,
            before=_time(before),
            after=_time(after),
            filters=filters if filters is None or isinstance(filters, str) else json.dumps(filters),
            limit=limit,
            offset=offset,
        )
        return await self._request("GET", "/v1/memories", query=query)

    # Memories: one API over every kind, by id.

    async def add_memory(
        self,
        content: str,
        *,
        user_id: Optional[str] = None,
        agent_id: Optional[str] = None,
        session_id: Optional[str] = None,
        kind: Optional[str] = None,
        key: Optional[str] = None,
        category: Optional[str] = None,
        tags: Optional[Sequence[str]] = None,
        metadata: Optional[t.Metadata] = None,
        expires_at: Optional[Time] = None,
        ttl_seconds: Optional[int] = None,
    ) -> t.AddMemoryResponse:
        """Add a memory: a fact by default (category ``general_fact``), or ``kind="passage"``
        or ``"note"`` (both need ``agent_id``; a note a ``key``). ``event`` is ``ADD``;
        ``UPDATE`` when ``key`` held something else (``previous_id`` names it); ``NOOP`` with
        the existing ``id`` when the same content (case and spacing aside) is already there.
        ``expires_at`` or ``ttl_seconds`` sets a time to live."""
        body = _fields(
            content=content,
            user_id=user_id,
            agent_id=agent_id,
            session_id=session_id,
            kind=kind,
            key=key,
            category=category,
            tags=list(tags) if tags is not None else None,
            metadata=metadata,
            expires_at=_time(expires_at),
            ttl_seconds=ttl_seconds,
        )
        return await self._request("POST", "/v1/memories", body=body)

    async def add_messages(
        self,
        messages: Sequence[Any],
        *,
        user_id: Optional[str] = None,
        agent_id: Optional[str] = None,
        session_id: Optional[str] = None,
        infer: Union[bool, str, None] = None,
        run_async: Optional[bool] = None,
        metadata: Optional[t.Metadata] = None,
        expires_at: Optional[Time] = None,
        ttl_seconds: Optional[int] = None,
    ) -> t.AddMemoryResponse:
        """Add a conversation as memories: ``messages`` are ``{"role", "content", "name"?}``
        with role user, assistant, system or tool. Without a chat model on the server (or with
        ``infer=False``) each user message becomes one memory about the user and the others
        none (``skipped`` says why); with one, the model's ``ADD``, ``UPDATE``, ``DELETE`` and
        ``NOOP`` decisions are in ``results``. ``session_id`` appends every message to that
        session. Unavailable (503) when the model fails, unless ``infer="fallback"``.
        ``run_async=True`` (the API's ``async``) queues the add and answers its ``event_id``:
        follow it with :meth:`get_event`."""
        body = _fields(
            messages=[dict(m) for m in messages],
            user_id=user_id,
            agent_id=agent_id,
            session_id=session_id,
            infer=infer,
            metadata=metadata,
            expires_at=_time(expires_at),
            ttl_seconds=ttl_seconds,
        )
        if run_async is not None:
            body["async"] = run_async
        return await self._request("POST", "/v1/memories", body=body)

    async def get_event(self, event_id: str) -> t.GetEventResponse:
        """A queued add of messages: ``status`` PENDING, then SUCCEEDED with the ``results``
        a synchronous add answers, or FAILED with ``error``; NotFound when unknown."""
        return await self._request("GET", _path("/v1/events/{}", event_id))

    async def get_memory(self, memory_id: str) -> t.GetMemoryResponse:
        """One memory of any kind (its kind's own fields in ``data``); NotFound when absent or expired."""
        return await self._request("GET", _path("/v1/memories/{}", memory_id))

    async def update_memory(
        self,
        memory_id: str,
        *,
        content: Optional[str] = None,
        metadata: Optional[t.Metadata] = UNSET,
        tags: Optional[Sequence[str]] = None,
        expires_at: Optional[Time] = None,
        ttl_seconds: Optional[int] = None,
    ) -> t.PatchMemoryResponse:
        """Change a memory in place, keeping history: ``event`` ``UPDATE`` with the new
        ``version``, or ``NOOP`` when nothing differs. ``metadata=None`` clears the metadata
        (leave it out to keep it). A keyed fact's new content is a new version: ``id`` names
        it, ``previous_id`` the one changed. Conflict for a kind written through its own
        routes (a session message); NotFound when absent."""
        body = _fields(
            content=content,
            tags=list(tags) if tags is not None else None,
            expires_at=_time(expires_at),
            ttl_seconds=ttl_seconds,
        )
        if metadata is not UNSET:
            body["metadata"] = metadata
        return await self._request("PATCH", _path("/v1/memories/{}", memory_id), body=body)

    async def delete_memory(self, memory_id: str) -> t.DeleteMemoryResponse:
        """Delete a memory of any kind, as its kind's own delete does; NotFound when absent."""
        return await self._request("DELETE", _path("/v1/memories/{}", memory_id))

    async def memory_history(self, memory_id: str) -> t.MemoryHistoryResponse:
        """Every value the memory has had, newest first (``versions``, each with ``event``
        ``ADD`` or ``UPDATE``, ``content`` and ``metadata``); NotFound after a delete."""
        return await self._request("GET", _path("/v1/memories/{}/history", memory_id))

    async def batch_memories(
        self,
        *,
        add: Optional[Sequence[t.MemoryInput]] = None,
        update: Optional[Sequence[t.MemoryUpdate]] = None,
        delete: Optional[Sequence[str]] = None,
    ) -> t.BatchMemoriesResponse:
        """Up to 1000 operations in one transaction: ``add`` (dicts as :meth:`add_memory`
        takes), ``update`` (dicts with the ``id`` and what :meth:`update_memory` takes; a
        ``"metadata": None`` clears it) and ``delete`` (ids). ``results`` holds one event
        each: the adds, then the updates, then the deletes. One bad operation raises (its
        message names it, e.g. ``add[2]``) and nothing is applied."""
        body = _fields(
            add=[_op_times(op) for op in add] if add is not None else None,
            update=[_op_times(op) for op in update] if update is not None else None,
            delete=list(delete) if delete is not None else None,
        )
        return await self._request("POST", "/v1/memories/batch", body=body)

    async def whoami(self) -> t.WhoamiResponse:
        """The caller's key: ``auth`` (whether the server requires one), ``key_id``, ``role``, ``agent_id``."""
        return await self._request("GET", "/v1/whoami")

    # Search across kinds.

    async def search(
        self,
        query: str,
        *,
        agent_id: Optional[str] = None,
        user_id: Optional[str] = None,
        session_id: Optional[str] = None,
        kinds: Optional[Sequence[t.Kind]] = None,
        tags: Optional[Sequence[str]] = None,
        filters: Optional[t.MemoryFilter] = None,
        limit: Optional[int] = None,
        explain: Optional[bool] = None,
        threshold: Optional[float] = None,
        reference_date: Optional[str] = None,
    ) -> t.SearchResponse:
        """Search over every kind in scope, by words and, with a model, by meaning (the answer's
        ``retrieval`` says which); ``filters`` (a dict of the filter language) selects records
        before ranking; ``explain=True`` shows each signal's rank and score; ``threshold`` (0-1)
        drops results whose score, their relevance, is below it; ``reference_date`` (RFC 3339 or
        a date) is when the question is asked."""
        body = _fields(
            query=query,
            agent_id=agent_id,
            user_id=user_id,
            session_id=session_id,
            kinds=list(kinds) if kinds is not None else None,
            tags=list(tags) if tags is not None else None,
            filters=filters,
            limit=limit,
            explain=explain,
            threshold=threshold,
            reference_date=reference_date,
        )
        return await self._request("POST", "/v1/search", body=body, idempotent=True)

    # Administration (the admin role).

    async def maintain(
        self, *, tasks: Optional[Sequence[t.MaintenanceTask]] = None, dry_run: Optional[bool] = None
    ) -> t.MaintainResponse:
        """Run maintenance tasks (``consolidate``, ``decay``, ``prune``, ``expire``; all by default)."""
        body = _fields(tasks=list(tasks) if tasks is not None else None, dry_run=dry_run)
        return await self._request("POST", "/v1/maintenance", body=body)

    async def create_key(
        self, role: t.Role, *, agent_id: Optional[str] = None, name: Optional[str] = None
    ) -> t.CreateKeyResponse:
        """Create an API key; its secret (``api_key``) is answered only this once."""
        return await self._request("POST", "/v1/keys", body=_fields(role=role, agent_id=agent_id, name=name))

    async def list_keys(self) -> t.ListKeysResponse:
        """The workspace's keys, never their secrets."""
        return await self._request("GET", "/v1/keys")

    async def revoke_key(self, key_id: str) -> t.RevokeKeyResponse:
        """Revoke a key; NotFound when absent."""
        return await self._request("DELETE", _path("/v1/keys/{}", key_id))

    async def audit(
        self,
        *,
        agent_id: Optional[str] = None,
        user_id: Optional[str] = None,
        key_id: Optional[str] = None,
        operation: Optional[str] = None,
        since: Optional[Time] = None,
        limit: Optional[int] = None,
        offset: Optional[int] = None,
    ) -> t.AuditResponse:
        """The access log, newest first."""
        query = _fields(
            agent_id=agent_id, user_id=user_id, key_id=key_id, operation=operation, since=_time(since), limit=limit, offset=offset
        )
        return await self._request("GET", "/v1/audit", query=query)

    async def export(self, *, user_id: Optional[str] = None) -> str:
        """The workspace (or one user's records) as JSON Lines, for :meth:`import_jsonl`."""
        return await self._request("GET", "/v1/export", query=_fields(user_id=user_id), text=True)

    async def import_jsonl(self, data: Union[str, bytes]) -> t.ImportResponse:
        """Import JSON Lines written by :meth:`export` (a lossless round trip)."""
        raw = data.encode("utf-8") if isinstance(data, str) else data
        return await self._request("POST", "/v1/import", raw=raw, content_type="application/x-ndjson")


class AsyncAgentClient:
    """One agent's memory: the agent-scoped methods of :class:`AsyncClient` with the agent id filled in
    (``client.agent("writer").remember("tone", "friendly")``)."""

    def __init__(self, client: AsyncClient, agent_id: str) -> None:
        self.client = client
        self.id = agent_id

    def __repr__(self) -> str:
        return "AsyncAgentClient(%r)" % self.id

    async def remember(self, key: str, value: Any) -> t.RememberResponse:
        return await self.client.remember(self.id, key, value)

    async def recall(self, key: str) -> t.RecallResponse:
        return await self.client.recall(self.id, key)

    async def recall_all(self, **kwargs: Any) -> t.RecallAllResponse:
        return await self.client.recall_all(self.id, **kwargs)

    async def forget(self, key: str) -> t.ForgetResponse:
        return await self.client.forget(self.id, key)

    async def note_history(self, key: str) -> t.NoteHistoryResponse:
        return await self.client.note_history(self.id, key)

    async def create(self, **kwargs: Any) -> t.CreateAgentResponse:
        return await self.client.create_agent(self.id, **kwargs)

    async def get(self) -> t.GetAgentResponse:
        return await self.client.get_agent(self.id)

    async def delete(self) -> t.DeleteAgentResponse:
        return await self.client.delete_agent(self.id)

    async def list_blocks(self) -> t.ListBlocksResponse:
        return await self.client.list_blocks(self.id)

    async def get_block(self, label: str) -> t.GetBlockResponse:
        return await self.client.get_block(self.id, label)

    async def block_history(self, label: str) -> t.BlockHistoryResponse:
        return await self.client.block_history(self.id, label)

    async def set_block(self, label: str, content: str, **kwargs: Any) -> t.SetBlockResponse:
        return await self.client.set_block(self.id, label, content, **kwargs)

    async def create_block(self, label: str, content: str, **kwargs: Any) -> t.CreateBlockResponse:
        return await self.client.create_block(self.id, label, content, **kwargs)

    async def attach_block(self, block_id: str) -> t.AttachBlockResponse:
        """Attach another agent's shared block to this agent."""
        return await self.client.attach_block(block_id, self.id)

    async def detach_block(self, block_id: str) -> t.DetachBlockResponse:
        return await self.client.detach_block(block_id, self.id)

    async def prompt(self) -> str:
        return await self.client.prompt(self.id)

    async def add_passage(self, content: str, **kwargs: Any) -> t.AddPassageResponse:
        return await self.client.add_passage(self.id, content, **kwargs)

    async def list_passages(self, **kwargs: Any) -> t.ListPassagesResponse:
        return await self.client.list_passages(self.id, **kwargs)

    async def search_passages(self, q: str, **kwargs: Any) -> t.SearchPassagesResponse:
        return await self.client.search_passages(self.id, q, **kwargs)

    async def delete_passage(self, passage_id: str) -> t.DeletePassageResponse:
        return await self.client.delete_passage(self.id, passage_id)

    async def set_working(self, task_id: str, key: str, value: Any, **kwargs: Any) -> t.SetWorkingResponse:
        return await self.client.set_working(task_id, key, value, self.id, **kwargs)

    async def get_working(self, task_id: str, key: str, **kwargs: Any) -> t.GetWorkingResponse:
        return await self.client.get_working(task_id, key, agent_id=self.id, **kwargs)

    async def list_working(self, task_id: str, **kwargs: Any) -> t.ListWorkingResponse:
        return await self.client.list_working(task_id, agent_id=self.id, **kwargs)

    async def delete_working(self, task_id: str, key: str, **kwargs: Any) -> t.DeleteWorkingResponse:
        return await self.client.delete_working(task_id, key, agent_id=self.id, **kwargs)

    async def clear_working(self, task_id: str, **kwargs: Any) -> t.ClearWorkingResponse:
        return await self.client.clear_working(task_id, agent_id=self.id, **kwargs)

    async def search(self, query: str, **kwargs: Any) -> t.SearchResponse:
        return await self.client.search(query, agent_id=self.id, **kwargs)

    async def stats(self, **kwargs: Any) -> t.StatsResponse:
        return await self.client.stats(agent_id=self.id, **kwargs)

    async def list_memories(self, **kwargs: Any) -> t.ListMemoriesResponse:
        return await self.client.list_memories(agent_id=self.id, **kwargs)

    async def add_memory(self, content: str, **kwargs: Any) -> t.AddMemoryResponse:
        return await self.client.add_memory(content, agent_id=self.id, **kwargs)


class AsyncUserClient:
    """One user's memory: the user-scoped methods of :class:`AsyncClient` with the user id filled in
    (``client.user("u1").context()``)."""

    def __init__(self, client: AsyncClient, user_id: str) -> None:
        self.client = client
        self.id = user_id

    def __repr__(self) -> str:
        return "AsyncUserClient(%r)" % self.id

    async def observe_preference(self, type: str, value: Any, source: t.PreferenceSource, **kwargs: Any) -> t.ObservePreferenceResponse:
        return await self.client.observe_preference(self.id, type, value, source, **kwargs)

    async def list_preferences(self, **kwargs: Any) -> t.ListPreferencesResponse:
        return await self.client.list_preferences(self.id, **kwargs)

    async def use_preference(self, type: str, **kwargs: Any) -> t.UsePreferenceResponse:
        return await self.client.use_preference(self.id, type, **kwargs)

    async def confirm_preference(self, type: str, **kwargs: Any) -> t.ConfirmPreferenceResponse:
        return await self.client.confirm_preference(self.id, type, **kwargs)

    async def contradict_preference(self, type: str, source: t.PreferenceSource, **kwargs: Any) -> t.ContradictPreferenceResponse:
        return await self.client.contradict_preference(self.id, type, source, **kwargs)

    async def resolve_preference(self, type: str, keep: bool, **kwargs: Any) -> t.ResolvePreferenceResponse:
        return await self.client.resolve_preference(self.id, type, keep, **kwargs)

    async def delete_preference(self, type: str) -> t.DeletePreferenceResponse:
        return await self.client.delete_preference(self.id, type)

    async def clear_preferences(self) -> t.ClearPreferencesResponse:
        return await self.client.clear_preferences(self.id)

    async def context(self) -> t.UserContextResponse:
        return await self.client.user_context(self.id)

    async def memories(self, **kwargs: Any) -> t.UserMemoriesResponse:
        return await self.client.user_memories(self.id, **kwargs)

    async def review_queue(self, **kwargs: Any) -> t.ReviewQueueResponse:
        return await self.client.review_queue(self.id, **kwargs)

    async def forget(self, **kwargs: Any) -> t.ForgetUserMemoriesResponse:
        return await self.client.forget_user_memories(self.id, **kwargs)

    async def delete(self) -> t.DeleteUserResponse:
        return await self.client.delete_user(self.id)

    async def put_session(self, session_id: str, **kwargs: Any) -> t.PutSessionResponse:
        return await self.client.put_session(session_id, self.id, **kwargs)

    async def list_sessions(self, **kwargs: Any) -> t.ListUserSessionsResponse:
        return await self.client.list_sessions(self.id, **kwargs)

    async def record_episode(
        self, agent_id: str, action_type: str, action_description: str, outcome: t.Outcome, **kwargs: Any
    ) -> t.RecordEpisodeResponse:
        return await self.client.record_episode(self.id, agent_id, action_type, action_description, outcome, **kwargs)

    async def search_episodes(self, agent_id: str, q: str, **kwargs: Any) -> t.SearchEpisodesResponse:
        return await self.client.search_episodes(self.id, agent_id, q, **kwargs)

    async def recent_episodes(self, agent_id: str, **kwargs: Any) -> t.RecentEpisodesResponse:
        return await self.client.recent_episodes(self.id, agent_id, **kwargs)

    async def store_fact(self, category: t.FactCategory, fact: str, **kwargs: Any) -> t.StoreFactResponse:
        return await self.client.store_fact(category, fact, user_id=self.id, **kwargs)

    async def search_facts(self, q: str, **kwargs: Any) -> t.SearchFactsResponse:
        return await self.client.search_facts(q, user_id=self.id, **kwargs)

    async def list_facts(self, **kwargs: Any) -> t.FactsByKeywordResponse:
        return await self.client.list_facts(user_id=self.id, **kwargs)

    async def search(self, query: str, **kwargs: Any) -> t.SearchResponse:
        return await self.client.search(query, user_id=self.id, **kwargs)

    async def stats(self, **kwargs: Any) -> t.StatsResponse:
        return await self.client.stats(user_id=self.id, **kwargs)

    async def list_memories(self, **kwargs: Any) -> t.ListMemoriesResponse:
        return await self.client.list_memories(user_id=self.id, **kwargs)

    async def add_memory(self, content: str, **kwargs: Any) -> t.AddMemoryResponse:
        return await self.client.add_memory(content, user_id=self.id, **kwargs)
