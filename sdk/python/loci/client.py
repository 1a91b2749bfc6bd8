"""The loci client: one method per REST operation, on urllib and json alone.

Each method returns the server's JSON answer as a dict (typed by the
TypedDicts of :mod:`loci.types`, generated from the OpenAPI document), or
text where the server answers text (:meth:`Client.prompt`,
:meth:`Client.export`), and raises a :class:`loci.errors.LociError`
subclass for a failure.

Adding an operation is one method: build the path with :func:`_path`
and call :meth:`Client._request`.
"""

import asyncio
import datetime
import json
import logging
import os
import random
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Dict, Mapping, Optional, Sequence, Tuple, Union

from . import types as t
from .errors import LociError, TransportError, error_from_response

__all__ = ["Client", "AgentClient", "UserClient", "DEFAULT_URL", "UNSET", "__version__"]

__version__ = "0.1.0"

#: DEFAULT_URL is where ``loci serve`` listens by default.
DEFAULT_URL = "http://127.0.0.1:8420"

logger = logging.getLogger("loci")

Time = Union[str, datetime.datetime]

_IDEMPOTENT = frozenset(["GET", "HEAD", "PUT", "DELETE"])


def _path(template: str, *segments: Any) -> str:
    """template with each {} replaced by a segment, escaped for a URL path."""
    return template.format(*(urllib.parse.quote(str(s), safe="") for s in segments))


def _time(value: Optional[Time]) -> Optional[str]:
    """An RFC 3339 string for a datetime (a naive one is taken as UTC)."""
    if isinstance(value, datetime.datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=datetime.timezone.utc)
        return value.isoformat()
    return value


class _Unset:
    """The type of :data:`UNSET`."""

    _instance = None

    def __new__(cls) -> "_Unset":
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNSET"

    def __bool__(self) -> bool:
        return False


#: UNSET is the default of an argument whose None means something (clear
#: it): :meth:`Client.update_memory`'s ``metadata=None`` clears the metadata,
#: leaving ``metadata`` out (UNSET) keeps it.
UNSET: Any = _Unset()


def _fields(**kwargs: Any) -> Dict[str, Any]:
    """The keyword arguments that are not None: a request body or query."""
    return {k: v for k, v in kwargs.items() if v is not None}


class _ClientBase:
    """What :class:`Client` and :class:`loci.AsyncClient` share: the settings, the
    building of a request, the retry rules and one HTTP exchange."""

    def __init__(
        self,
        base_url: Optional[str] = None,
        api_key: Optional[str] = None,
        *,
        timeout: float = 30.0,
        max_retries: int = 3,
        max_retry_wait: float = 30.0,
        backoff: float = 0.25,
    ) -> None:
        if base_url is None:
            base_url = os.environ.get("LOCI_URL") or DEFAULT_URL
        if api_key is None:
            api_key = os.environ.get("LOCI_API_KEY") or None
        scheme = urllib.parse.urlsplit(base_url).scheme
        if scheme not in ("http", "https"):
            raise ValueError("base_url must start with http:// or https://, got %r" % base_url)
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.timeout = timeout
        self.max_retries = max_retries
        self.max_retry_wait = max_retry_wait
        self.backoff = backoff

    def __repr__(self) -> str:
        return "%s(%r)" % (type(self).__name__, self.base_url)

    def _prepare(
        self,
        method: str,
        path: str,
        query: Optional[Mapping[str, Any]],
        body: Any,
        raw: Optional[bytes],
        content_type: str,
        idempotent: Optional[bool],
    ) -> Tuple[str, Optional[bytes], Dict[str, str], bool]:
        """The request's URL, body and headers, and whether it may be retried."""
        url = self.base_url + path
        if query:
            url += "?" + urllib.parse.urlencode(_query_pairs(query))
        headers = {"Accept": "application/json", "User-Agent": "loci-python/" + __version__}
        if self.api_key:
            headers["Authorization"] = "Bearer " + self.api_key
        data = raw
        if body is not None:
            data = json.dumps(body).encode("utf-8")
        if data is not None:
            headers["Content-Type"] = content_type
        if idempotent is None:
            idempotent = method in _IDEMPOTENT
        return url, data, headers, idempotent

    def _retry_wait(self, method: str, path: str, idempotent: bool, attempt: int, err: LociError) -> float:
        """After a failed attempt: the seconds to wait before the next one, or
        err raised when it is not retried (a transport error of a request that
        is not idempotent, a timeout, a status other than 429 and an idempotent
        request's 503, the retries used up, or a wait over max_retry_wait)."""
        if isinstance(err, TransportError):
            if not idempotent or err.timed_out or attempt >= self.max_retries:
                raise err
            wait = self._backoff_wait(attempt)
            self._log_retry(method, path, wait, attempt, str(err))
            return wait
        retryable = err.status == 429 or (err.status == 503 and idempotent)
        if retryable and attempt < self.max_retries:
            wait = err.retry_after if err.retry_after is not None else self._backoff_wait(attempt)
            if wait <= self.max_retry_wait:
                self._log_retry(method, path, wait, attempt, "%d %s" % (err.status, err.code))
                return wait
        raise err

    def _send(self, method: str, url: str, data: Optional[bytes], headers: Dict[str, str]) -> Tuple[int, Any, bytes]:
        """One HTTP exchange: (status, headers, body), or TransportError."""
        req = urllib.request.Request(url, data=data, headers=headers, method=method)
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                return resp.status, resp.headers, resp.read()
        except urllib.error.HTTPError as e:
            try:
                payload = e.read()
            except (OSError, ValueError):
                payload = b""
            finally:
                e.close()
            return e.code, e.headers, payload
        except urllib.error.URLError as e:
            reason = e.reason
            timed_out = isinstance(reason, socket.timeout)
            raise _transport_error(method, url, reason, timed_out) from e
        except socket.timeout as e:
            raise _transport_error(method, url, e, True) from e
        except (OSError, ValueError) as e:  # http.client's RemoteDisconnected, a reset, a bad status line
            raise _transport_error(method, url, e, False) from e

    def _backoff_wait(self, attempt: int) -> float:
        """Exponential backoff with jitter: about backoff * 2**attempt seconds."""
        return self.backoff * (2 ** attempt) * (0.5 + random.random() / 2)

    def _log_retry(self, method: str, path: str, wait: float, attempt: int, why: str) -> None:
        logger.info(
            "loci: retrying %s %s in %.2f s after %s (retry %d of %d)", method, path, wait, why, attempt + 1, self.max_retries
        )


class Client(_ClientBase):
    """A client of one loci server.

    ``base_url`` defaults to ``$LOCI_URL``, else ``http://127.0.0.1:8420``;
    ``api_key`` to ``$LOCI_API_KEY`` (sent as ``Authorization: Bearer``;
    leave it unset while the server's authentication is off). ``timeout`` is
    each request's limit in seconds. Idempotent requests (GET, PUT, DELETE
    and search) are retried up to ``max_retries`` times on a connection
    error or a 503, and every request on a 429 (the server refuses it before
    doing anything), waiting as long as ``Retry-After`` asks, or a short
    backoff; an answer asking for more than ``max_retry_wait`` seconds is
    raised at once. A 507 (:class:`loci.StorageFull`, a full disk) is never
    retried.
    """

    # Scoped helpers.

    def agent(self, agent_id: str) -> "AgentClient":
        """The operations on one agent's memory, without repeating its id."""
        return AgentClient(self, agent_id)

    def user(self, user_id: str) -> "UserClient":
        """The operations on one user's memory, without repeating their id."""
        return UserClient(self, user_id)

    # Health.

    def health(self) -> t.HealthResponse:
        """GET /healthz: the process is alive."""
        return self._request("GET", "/healthz")

    def ready(self) -> t.ReadyResponse:
        """GET /readyz: storage is reachable (raises Unavailable or ServerError when not)."""
        return self._request("GET", "/readyz")

    # Notes: an agent's key-value memories.

    def remember(self, agent_id: str, key: str, value: Any) -> t.RememberResponse:
        """Store a note (a string or any JSON) under key; ``action`` is ``created`` or ``updated``."""
        return self._request("PUT", _path("/v1/agents/{}/notes/{}", agent_id, key), body={"value": value})

    def recall(self, agent_id: str, key: str) -> t.RecallResponse:
        """One note; NotFound ("Memory not found") when absent."""
        return self._request("GET", _path("/v1/agents/{}/notes/{}", agent_id, key))

    def recall_all(self, agent_id: str, *, limit: Optional[int] = None, offset: Optional[int] = None) -> t.RecallAllResponse:
        """The agent's notes: ``count`` and ``memories``."""
        return self._request("GET", _path("/v1/agents/{}/notes", agent_id), query=_fields(limit=limit, offset=offset))

    def forget(self, agent_id: str, key: str) -> t.ForgetResponse:
        """Delete a note; NotFound when absent."""
        return self._request("DELETE", _path("/v1/agents/{}/notes/{}", agent_id, key))

    def note_history(self, agent_id: str, key: str) -> t.NoteHistoryResponse:
        """Every value the note has had, the current one first (``versions``)."""
        return self._request("GET", _path("/v1/agents/{}/notes/{}/history", agent_id, key))

    # Agents and core memory blocks.

    def create_agent(
        self, agent_id: str, *, name: Optional[str] = None, blocks: Optional[Sequence[t.BlockSpec]] = None
    ) -> t.CreateAgentResponse:
        """Create an agent (Conflict if it exists); without ``blocks`` it gets the three standard empty blocks."""
        body = _fields(id=agent_id, name=name, blocks=list(blocks) if blocks is not None else None)
        return self._request("POST", "/v1/agents", body=body)

    def list_agents(self, *, limit: Optional[int] = None, offset: Optional[int] = None) -> t.ListAgentsResponse:
        """Every agent: ``count`` and ``agents``."""
        return self._request("GET", "/v1/agents", query=_fields(limit=limit, offset=offset))

    def get_agent(self, agent_id: str) -> t.GetAgentResponse:
        """One agent; NotFound when absent."""
        return self._request("GET", _path("/v1/agents/{}", agent_id))

    def delete_agent(self, agent_id: str) -> t.DeleteAgentResponse:
        """Delete an agent and everything it owns; NotFound when absent."""
        return self._request("DELETE", _path("/v1/agents/{}", agent_id))

    def list_blocks(self, agent_id: str) -> t.ListBlocksResponse:
        """The agent's blocks, owned and attached shared ones."""
        return self._request("GET", _path("/v1/agents/{}/blocks", agent_id))

    def get_block(self, agent_id: str, label: str) -> t.GetBlockResponse:
        """One block by label; NotFound when none."""
        return self._request("GET", _path("/v1/agents/{}/blocks/{}", agent_id, label))

    def block_history(self, agent_id: str, label: str) -> t.BlockHistoryResponse:
        """Every content the block has had, the current one first (``versions``); NotFound when none."""
        return self._request("GET", _path("/v1/agents/{}/blocks/{}/history", agent_id, label))

    def set_block(
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
        return self._request("PUT", _path("/v1/agents/{}/blocks/{}", agent_id, label), body=body)

    def create_block(
        self, agent_id: str, label: str, content: str, *, shared: bool = False, limit: Optional[int] = None
    ) -> t.CreateBlockResponse:
        """Create a block (Conflict if the label is taken); ``shared=True`` makes one other agents can be attached to."""
        body = _fields(label=label, content=content, shared=shared, limit=limit)
        return self._request("POST", _path("/v1/agents/{}/blocks", agent_id), body=body)

    def attach_block(self, block_id: str, agent_id: str) -> t.AttachBlockResponse:
        """Attach a shared block to another agent (idempotent)."""
        return self._request("PUT", _path("/v1/blocks/{}/consumers/{}", block_id, agent_id))

    def detach_block(self, block_id: str, agent_id: str) -> t.DetachBlockResponse:
        """Detach a shared block from an agent; NotFound if it is not attached."""
        return self._request("DELETE", _path("/v1/blocks/{}/consumers/{}", block_id, agent_id))

    def list_block_consumers(self, block_id: str) -> t.ListBlockConsumersResponse:
        """The agents a shared block is attached to (``consumers``)."""
        return self._request("GET", _path("/v1/blocks/{}/consumers", block_id))

    def prompt(self, agent_id: str) -> str:
        """The agent's core memory rendered as text: every block as ``### {label}\\n{content}``."""
        return self._request("GET", _path("/v1/agents/{}/prompt", agent_id), text=True)

    # Archival passages.

    def add_passage(self, agent_id: str, content: str, *, tags: Optional[Sequence[str]] = None) -> t.AddPassageResponse:
        """Store an archival passage; answers its ``id``."""
        body = _fields(content=content, tags=list(tags) if tags is not None else None)
        return self._request("POST", _path("/v1/agents/{}/passages", agent_id), body=body)

    def list_passages(
        self, agent_id: str, *, tag: Optional[str] = None, limit: Optional[int] = None, offset: Optional[int] = None
    ) -> t.ListPassagesResponse:
        """The agent's passages, newest first."""
        query = _fields(tag=tag, limit=limit, offset=offset)
        return self._request("GET", _path("/v1/agents/{}/passages", agent_id), query=query)

    def search_passages(
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
        return self._request("GET", _path("/v1/agents/{}/passages/search", agent_id), query=query)

    def delete_passage(self, agent_id: str, passage_id: str) -> t.DeletePassageResponse:
        """Delete a passage; NotFound when absent."""
        return self._request("DELETE", _path("/v1/agents/{}/passages/{}", agent_id, passage_id))

    # Sessions and conversations.

    def put_session(
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
        return self._request("PUT", _path("/v1/sessions/{}", session_id), body=body)

    def append_message(self, session_id: str, role: str, content: str) -> t.AppendMessageResponse:
        """Append one message to a session; NotFound when the session does not exist."""
        body = {"role": role, "content": content}
        return self._request("POST", _path("/v1/sessions/{}/messages", session_id), body=body)

    def get_session(self, session_id: str) -> t.GetSessionResponse:
        """A session with its messages, in order; NotFound when absent."""
        return self._request("GET", _path("/v1/sessions/{}", session_id))

    def delete_session(self, session_id: str) -> t.DeleteSessionResponse:
        """Delete a session; ``deleted`` says whether it existed."""
        return self._request("DELETE", _path("/v1/sessions/{}", session_id))

    def list_sessions(
        self, user_id: str, *, limit: Optional[int] = None, offset: Optional[int] = None
    ) -> t.ListUserSessionsResponse:
        """The user's sessions, metadata only, newest first."""
        query = _fields(limit=limit, offset=offset)
        return self._request("GET", _path("/v1/users/{}/sessions", user_id), query=query)

    # Working memory: a task's scratchpad.

    def set_working(
        self, task_id: str, key: str, value: Any, agent_id: str, *, user_id: Optional[str] = None
    ) -> t.SetWorkingResponse:
        """Set a value (any JSON); TooLarge when the task's values would pass 50 KB."""
        body = _fields(value=value, agent_id=agent_id, user_id=user_id)
        return self._request("PUT", _path("/v1/tasks/{}/working/{}", task_id, key), body=body)

    def get_working(
        self, task_id: str, key: str, *, agent_id: Optional[str] = None, user_id: Optional[str] = None
    ) -> t.GetWorkingResponse:
        """One value; NotFound when absent or expired."""
        query = _fields(agent_id=agent_id, user_id=user_id)
        return self._request("GET", _path("/v1/tasks/{}/working/{}", task_id, key), query=query)

    def list_working(
        self, task_id: str, *, agent_id: Optional[str] = None, user_id: Optional[str] = None
    ) -> t.ListWorkingResponse:
        """The task's values as one object (``values``), and the entries (``working``)."""
        query = _fields(agent_id=agent_id, user_id=user_id)
        return self._request("GET", _path("/v1/tasks/{}/working", task_id), query=query)

    def delete_working(
        self, task_id: str, key: str, *, agent_id: Optional[str] = None, user_id: Optional[str] = None
    ) -> t.DeleteWorkingResponse:
        """Delete one value of the task; NotFound when absent or expired."""
        query = _fields(agent_id=agent_id, user_id=user_id)
        return self._request("DELETE", _path("/v1/tasks/{}/working/{}", task_id, key), query=query)

    def clear_working(
        self, task_id: str, *, agent_id: Optional[str] = None, user_id: Optional[str] = None
    ) -> t.ClearWorkingResponse:
        """Delete the task's values; ``deleted`` counts them."""
        query = _fields(agent_id=agent_id, user_id=user_id)
        return self._request("DELETE", _path("/v1/tasks/{}/working", task_id), query=query)

    # Episodes: what an agent did for a user and how it went.

    def record_episode(
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
        return self._request("POST", "/v1/episodes", body=body)

    def search_episodes(
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
        return self._request("GET", "/v1/episodes/search", query=query)

    def recent_episodes(
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
        return self._request("GET", "/v1/episodes", query=query)

    def episode_feedback(
        self, episode_id: str, *, rating: Optional[int] = None, comment: Optional[str] = None, corrections: Any = None
    ) -> t.EpisodeFeedbackResponse:
        """Attach a user's feedback to an episode; answers the episode."""
        body = _fields(rating=rating, comment=comment, corrections=corrections)
        return self._request("POST", _path("/v1/episodes/{}/feedback", episode_id), body=body)

    def get_episode(self, episode_id: str) -> t.GetEpisodeResponse:
        """One episode; NotFound when absent or expired."""
        return self._request("GET", _path("/v1/episodes/{}", episode_id))

    def delete_episode(self, episode_id: str) -> t.DeleteEpisodeResponse:
        """Delete an episode, expired or not; NotFound when absent."""
        return self._request("DELETE", _path("/v1/episodes/{}", episode_id))

    # Facts: long-term knowledge, a user's or global.

    def store_fact(
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
        return self._request("POST", "/v1/facts", body=body)

    def search_facts(
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
        return self._request("GET", "/v1/facts/search", query=query)

    def list_facts(
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
        return self._request("GET", "/v1/facts", query=query)

    def get_fact(self, fact_id: str) -> t.GetFactResponse:
        """One fact, whatever its status (history included); not counted as an access. NotFound when absent."""
        return self._request("GET", _path("/v1/facts/{}", fact_id))

    def delete_fact(self, fact_id: str) -> t.DeleteFactResponse:
        """Delete one fact, global ones too (editor); NotFound when absent."""
        return self._request("DELETE", _path("/v1/facts/{}", fact_id))

    def fact_history(self, fact_id: str) -> t.FactHistoryResponse:
        """Every version of the fact's key in its slot, newest ``valid_at`` first (``facts``)."""
        return self._request("GET", _path("/v1/facts/{}/history", fact_id))

    def invalidate_fact(self, fact_id: str, *, at: Optional[Time] = None) -> t.InvalidateFactResponse:
        """No longer true from ``at`` (default now), kept as history; Invalid when ``at`` is before its
        ``valid_at``, Conflict when it had already ended. Answers the fact."""
        return self._request("POST", _path("/v1/facts/{}/invalidate", fact_id), body=_fields(at=_time(at)))

    def resolve_fact(self, fact_id: str, keep: bool) -> t.ResolveFactResponse:
        """Settle a disputed fact: ``keep=True`` clears the dispute, ``False`` invalidates it now
        (kept as history); Conflict when it is not disputed. Answers the fact."""
        return self._request("POST", _path("/v1/facts/{}/resolve", fact_id), body={"keep": keep})

    def validate_fact(self, fact_id: str) -> t.ValidateFactResponse:
        """Relevance +0.1 (at most 1.0) and validated; answers the fact."""
        return self._request("POST", _path("/v1/facts/{}/validate", fact_id))

    def contradict_fact(self, fact_id: str) -> t.ContradictFactResponse:
        """Relevance -0.2 (at least 0.0) and one more contradiction; answers the fact."""
        return self._request("POST", _path("/v1/facts/{}/contradict", fact_id))

    # Preferences, session start and privacy.

    def observe_preference(
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
        return self._request("POST", _path("/v1/users/{}/preferences", user_id), body=body)

    def list_preferences(
        self,
        user_id: str,
        *,
        session_id: Optional[str] = None,
        limit: Optional[int] = None,
        offset: Optional[int] = None,
    ) -> t.ListPreferencesResponse:
        """The user's preferences with their effective confidence and tier."""
        query = _fields(session_id=session_id, limit=limit, offset=offset)
        return self._request("GET", _path("/v1/users/{}/preferences", user_id), query=query)

    def use_preference(self, user_id: str, type: str, *, session_id: Optional[str] = None) -> t.UsePreferenceResponse:
        """The preference was applied: +5 up to its peak."""
        return self._request(
            "POST", _path("/v1/users/{}/preferences/{}/use", user_id, type), query=_fields(session_id=session_id)
        )

    def confirm_preference(
        self, user_id: str, type: str, *, session_id: Optional[str] = None
    ) -> t.ConfirmPreferenceResponse:
        """The user confirmed the preference: 100."""
        return self._request(
            "POST", _path("/v1/users/{}/preferences/{}/confirm", user_id, type), query=_fields(session_id=session_id)
        )

    def contradict_preference(
        self, user_id: str, type: str, source: t.PreferenceSource, *, session_id: Optional[str] = None
    ) -> t.ContradictPreferenceResponse:
        """The user contradicted it: -30 (``implicit``), or 0 and flagged for removal (``explicit``)."""
        return self._request(
            "POST",
            _path("/v1/users/{}/preferences/{}/contradict", user_id, type),
            query=_fields(session_id=session_id),
            body={"source": source},
        )

    def resolve_preference(
        self, user_id: str, type: str, keep: bool, *, session_id: Optional[str] = None
    ) -> t.ResolvePreferenceResponse:
        """Settle a preference flagged for removal: ``keep=True`` clears the flag, ``False`` forgets it;
        Conflict when it is not flagged. Answers the preference with ``kept``."""
        return self._request(
            "POST",
            _path("/v1/users/{}/preferences/{}/resolve", user_id, type),
            query=_fields(session_id=session_id),
            body={"keep": keep},
        )

    def delete_preference(self, user_id: str, type: str) -> t.DeletePreferenceResponse:
        """Forget one preference; NotFound when absent."""
        return self._request("DELETE", _path("/v1/users/{}/preferences/{}", user_id, type))

    def clear_preferences(self, user_id: str) -> t.ClearPreferencesResponse:
        """Forget every preference of the user; ``deleted`` counts them."""
        return self._request("DELETE", _path("/v1/users/{}/preferences", user_id))

    def user_context(self, user_id: str) -> t.UserContextResponse:
        """Session start: the preferences to apply and the last 5 live sessions (creates the user if new)."""
        return self._request("GET", _path("/v1/users/{}/context", user_id))

    def user_memories(
        self, user_id: str, *, as_of: Optional[Time] = None, include_history: Optional[bool] = None
    ) -> t.UserMemoriesResponse:
        """"What do you remember about me": everything about the user, by kind; facts true at
        ``as_of`` (default now), or every version with ``include_history=True``."""
        query = _fields(as_of=_time(as_of), include_history=include_history)
        return self._request("GET", _path("/v1/users/{}/memories", user_id), query=query)

    def review_queue(
        self, user_id: str, *, limit: Optional[int] = None, offset: Optional[int] = None
    ) -> t.ReviewQueueResponse:
        """What waits for a person: the user's disputed facts and preferences flagged for removal,
        each with ``kind`` and ``reason``, most recently changed first (``items``)."""
        query = _fields(limit=limit, offset=offset)
        return self._request("GET", _path("/v1/users/{}/review", user_id), query=query)

    def forget_user_memories(
        self,
        user_id: str,
        *,
        query: Optional[str] = None,
        ids: Optional[Sequence[str]] = None,
        dry_run: Optional[bool] = None,
    ) -> t.ForgetUserMemoriesResponse:
        """"Forget that I said X": delete what matches ``query`` (or the ``ids``); ``dry_run`` only shows it."""
        body = _fields(query=query, ids=list(ids) if ids is not None else None, dry_run=dry_run)
        return self._request("POST", _path("/v1/users/{}/forget", user_id), body=body)

    def delete_user(self, user_id: str) -> t.DeleteUserResponse:
        """Delete everything about the user, at once."""
        return self._request("DELETE", _path("/v1/users/{}", user_id))

    # Overview: users, stats, timeline, the caller.

    def list_users(
        self, *, q: Optional[str] = None, limit: Optional[int] = None, offset: Optional[int] = None
    ) -> t.ListUsersResponse:
        """Every user of the workspace (registered or named by a record), newest first; ``q``
        matches part of the id, ignoring case."""
        return self._request("GET", "/v1/users", query=_fields(q=q, limit=limit, offset=offset))

    def stats(
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
        return self._request("GET", "/v1/stats", query=query)

    def list_memories(
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
        return self._request("GET", "/v1/memories", query=query)

    # Memories: one API over every kind, by id.

    def add_memory(
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
        return self._request("POST", "/v1/memories", body=body)

    def add_messages(
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
        return self._request("POST", "/v1/memories", body=body)

    def get_event(self, event_id: str) -> t.GetEventResponse:
        """A queued add of messages: ``status`` PENDING, then SUCCEEDED with the ``results``
        a synchronous add answers, or FAILED with ``error``; NotFound when unknown."""
        return self._request("GET", _path("/v1/events/{}", event_id))

    def get_memory(self, memory_id: str) -> t.GetMemoryResponse:
        """One memory of any kind (its kind's own fields in ``data``); NotFound when absent or expired."""
        return self._request("GET", _path("/v1/memories/{}", memory_id))

    def update_memory(
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
        return self._request("PATCH", _path("/v1/memories/{}", memory_id), body=body)

    def delete_memory(self, memory_id: str) -> t.DeleteMemoryResponse:
        """Delete a memory of any kind, as its kind's own delete does; NotFound when absent."""
        return self._request("DELETE", _path("/v1/memories/{}", memory_id))

    def memory_history(self, memory_id: str) -> t.MemoryHistoryResponse:
        """Every value the memory has had, newest first (``versions``, each with ``event``
        ``ADD`` or ``UPDATE``, ``content`` and ``metadata``); NotFound after a delete."""
        return self._request("GET", _path("/v1/memories/{}/history", memory_id))

    def batch_memories(
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
        return self._request("POST", "/v1/memories/batch", body=body)

    def whoami(self) -> t.WhoamiResponse:
        """The caller's key: ``auth`` (whether the server requires one), ``key_id``, ``role``, ``agent_id``."""
        return self._request("GET", "/v1/whoami")

    # Search across kinds.

    def search(
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
        return self._request("POST", "/v1/search", body=body, idempotent=True)

    # Administration (the admin role).

    def maintain(
        self, *, tasks: Optional[Sequence[t.MaintenanceTask]] = None, dry_run: Optional[bool] = None
    ) -> t.MaintainResponse:
        """Run maintenance tasks (``consolidate``, ``decay``, ``prune``, ``expire``; all by default)."""
        body = _fields(tasks=list(tasks) if tasks is not None else None, dry_run=dry_run)
        return self._request("POST", "/v1/maintenance", body=body)

    def create_key(
        self, role: t.Role, *, agent_id: Optional[str] = None, name: Optional[str] = None
    ) -> t.CreateKeyResponse:
        """Create an API key; its secret (``api_key``) is answered only this once."""
        return self._request("POST", "/v1/keys", body=_fields(role=role, agent_id=agent_id, name=name))

    def list_keys(self) -> t.ListKeysResponse:
        """The workspace's keys, never their secrets."""
        return self._request("GET", "/v1/keys")

    def revoke_key(self, key_id: str) -> t.RevokeKeyResponse:
        """Revoke a key; NotFound when absent."""
        return self._request("DELETE", _path("/v1/keys/{}", key_id))

    def audit(
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
        return self._request("GET", "/v1/audit", query=query)

    def export(self, *, user_id: Optional[str] = None) -> str:
        """The workspace (or one user's records) as JSON Lines, for :meth:`import_jsonl`."""
        return self._request("GET", "/v1/export", query=_fields(user_id=user_id), text=True)

    def import_jsonl(self, data: Union[str, bytes]) -> t.ImportResponse:
        """Import JSON Lines written by :meth:`export` (a lossless round trip)."""
        raw = data.encode("utf-8") if isinstance(data, str) else data
        return self._request("POST", "/v1/import", raw=raw, content_type="application/x-ndjson")

    # The transport.

    def _request(
        self,
        method: str,
        path: str,
        *,
        query: Optional[Mapping[str, Any]] = None,
        body: Any = None,
        raw: Optional[bytes] = None,
        content_type: str = "application/json",
        idempotent: Optional[bool] = None,
        text: bool = False,
    ) -> Any:
        """Send one request (with retries) and return the decoded answer.

        ``body`` is sent as JSON, ``raw`` as is; ``idempotent`` (default:
        GET, PUT and DELETE are) allows retries after a connection error or a
        503; ``text`` returns the answer as text rather than JSON.
        """
        url, data, headers, idempotent = self._prepare(method, path, query, body, raw, content_type, idempotent)
        attempt = 0
        while True:
            try:
                status, answer_headers, payload = self._send(method, url, data, headers)
            except TransportError as err:
                wait = self._retry_wait(method, path, idempotent, attempt, err)
            else:
                if status < 400:
                    return _decode(payload, text)
                wait = self._retry_wait(method, path, idempotent, attempt, error_from_response(status, payload, answer_headers))
            time.sleep(wait)
            attempt += 1


class _AsyncClientBase(_ClientBase):
    """The transport of :class:`loci.AsyncClient`: the rules of :class:`Client`'s,
    with each HTTP exchange run in a worker thread (:func:`asyncio.to_thread`)
    and the waits between retries on the event loop (:func:`asyncio.sleep`)."""

    async def _request(
        self,
        method: str,
        path: str,
        *,
        query: Optional[Mapping[str, Any]] = None,
        body: Any = None,
        raw: Optional[bytes] = None,
        content_type: str = "application/json",
        idempotent: Optional[bool] = None,
        text: bool = False,
    ) -> Any:
        """As :meth:`Client._request`, awaited."""
        url, data, headers, idempotent = self._prepare(method, path, query, body, raw, content_type, idempotent)
        attempt = 0
        while True:
            try:
                status, answer_headers, payload = await asyncio.to_thread(self._send, method, url, data, headers)
            except TransportError as err:
                wait = self._retry_wait(method, path, idempotent, attempt, err)
            else:
                if status < 400:
                    return _decode(payload, text)
                wait = self._retry_wait(method, path, idempotent, attempt, error_from_response(status, payload, answer_headers))
            await asyncio.sleep(wait)
            attempt += 1


def _op_times(op: Mapping[str, Any]) -> Dict[str, Any]:
    """A batch operation with its ``expires_at`` as RFC 3339 text (a datetime is accepted)."""
    out = dict(op)
    if "expires_at" in out:
        out["expires_at"] = _time(out["expires_at"])
    return out


def _query_pairs(query: Mapping[str, Any]) -> Sequence[Tuple[str, str]]:
    """The query's parameters; a list or tuple is the parameter repeated."""
    pairs = []
    for k, v in query.items():
        for item in v if isinstance(v, (list, tuple)) else [v]:
            pairs.append((k, _query_value(item)))
    return pairs


def _query_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def _decode(payload: bytes, text: bool) -> Any:
    if text:
        return payload.decode("utf-8")
    if not payload:
        return {}
    return json.loads(payload.decode("utf-8"))


def _transport_error(method: str, url: str, reason: Any, timed_out: bool) -> TransportError:
    what = "timed out" if timed_out else str(reason) or type(reason).__name__
    err = TransportError("cannot reach loci: %s %s: %s" % (method, url, what))
    err.timed_out = timed_out
    return err


class AgentClient:
    """One agent's memory: the agent-scoped methods of :class:`Client` with the agent id filled in
    (``client.agent("writer").remember("tone", "friendly")``)."""

    def __init__(self, client: Client, agent_id: str) -> None:
        self.client = client
        self.id = agent_id

    def __repr__(self) -> str:
        return "AgentClient(%r)" % self.id

    def remember(self, key: str, value: Any) -> t.RememberResponse:
        return self.client.remember(self.id, key, value)

    def recall(self, key: str) -> t.RecallResponse:
        return self.client.recall(self.id, key)

    def recall_all(self, **kwargs: Any) -> t.RecallAllResponse:
        return self.client.recall_all(self.id, **kwargs)

    def forget(self, key: str) -> t.ForgetResponse:
        return self.client.forget(self.id, key)

    def note_history(self, key: str) -> t.NoteHistoryResponse:
        return self.client.note_history(self.id, key)

    def create(self, **kwargs: Any) -> t.CreateAgentResponse:
        return self.client.create_agent(self.id, **kwargs)

    def get(self) -> t.GetAgentResponse:
        return self.client.get_agent(self.id)

    def delete(self) -> t.DeleteAgentResponse:
        return self.client.delete_agent(self.id)

    def list_blocks(self) -> t.ListBlocksResponse:
        return self.client.list_blocks(self.id)

    def get_block(self, label: str) -> t.GetBlockResponse:
        return self.client.get_block(self.id, label)

    def block_history(self, label: str) -> t.BlockHistoryResponse:
        return self.client.block_history(self.id, label)

    def set_block(self, label: str, content: str, **kwargs: Any) -> t.SetBlockResponse:
        return self.client.set_block(self.id, label, content, **kwargs)

    def create_block(self, label: str, content: str, **kwargs: Any) -> t.CreateBlockResponse:
        return self.client.create_block(self.id, label, content, **kwargs)

    def attach_block(self, block_id: str) -> t.AttachBlockResponse:
        """Attach another agent's shared block to this agent."""
        return self.client.attach_block(block_id, self.id)

    def detach_block(self, block_id: str) -> t.DetachBlockResponse:
        return self.client.detach_block(block_id, self.id)

    def prompt(self) -> str:
        return self.client.prompt(self.id)

    def add_passage(self, content: str, **kwargs: Any) -> t.AddPassageResponse:
        return self.client.add_passage(self.id, content, **kwargs)

    def list_passages(self, **kwargs: Any) -> t.ListPassagesResponse:
        return self.client.list_passages(self.id, **kwargs)

    def search_passages(self, q: str, **kwargs: Any) -> t.SearchPassagesResponse:
        return self.client.search_passages(self.id, q, **kwargs)

    def delete_passage(self, passage_id: str) -> t.DeletePassageResponse:
        return self.client.delete_passage(self.id, passage_id)

    def set_working(self, task_id: str, key: str, value: Any, **kwargs: Any) -> t.SetWorkingResponse:
        return self.client.set_working(task_id, key, value, self.id, **kwargs)

    def get_working(self, task_id: str, key: str, **kwargs: Any) -> t.GetWorkingResponse:
        return self.client.get_working(task_id, key, agent_id=self.id, **kwargs)

    def list_working(self, task_id: str, **kwargs: Any) -> t.ListWorkingResponse:
        return self.client.list_working(task_id, agent_id=self.id, **kwargs)

    def delete_working(self, task_id: str, key: str, **kwargs: Any) -> t.DeleteWorkingResponse:
        return self.client.delete_working(task_id, key, agent_id=self.id, **kwargs)

    def clear_working(self, task_id: str, **kwargs: Any) -> t.ClearWorkingResponse:
        return self.client.clear_working(task_id, agent_id=self.id, **kwargs)

    def search(self, query: str, **kwargs: Any) -> t.SearchResponse:
        return self.client.search(query, agent_id=self.id, **kwargs)

    def stats(self, **kwargs: Any) -> t.StatsResponse:
        return self.client.stats(agent_id=self.id, **kwargs)

    def list_memories(self, **kwargs: Any) -> t.ListMemoriesResponse:
        return self.client.list_memories(agent_id=self.id, **kwargs)

    def add_memory(self, content: str, **kwargs: Any) -> t.AddMemoryResponse:
        return self.client.add_memory(content, agent_id=self.id, **kwargs)


class UserClient:
    """One user's memory: the user-scoped methods of :class:`Client` with the user id filled in
    (``client.user("u1").context()``)."""

    def __init__(self, client: Client, user_id: str) -> None:
        self.client = client
        self.id = user_id

    def __repr__(self) -> str:
        return "UserClient(%r)" % self.id

    def observe_preference(self, type: str, value: Any, source: t.PreferenceSource, **kwargs: Any) -> t.ObservePreferenceResponse:
        return self.client.observe_preference(self.id, type, value, source, **kwargs)

    def list_preferences(self, **kwargs: Any) -> t.ListPreferencesResponse:
        return self.client.list_preferences(self.id, **kwargs)

    def use_preference(self, type: str, **kwargs: Any) -> t.UsePreferenceResponse:
        return self.client.use_preference(self.id, type, **kwargs)

    def confirm_preference(self, type: str, **kwargs: Any) -> t.ConfirmPreferenceResponse:
        return self.client.confirm_preference(self.id, type, **kwargs)

    def contradict_preference(self, type: str, source: t.PreferenceSource, **kwargs: Any) -> t.ContradictPreferenceResponse:
        return self.client.contradict_preference(self.id, type, source, **kwargs)

    def resolve_preference(self, type: str, keep: bool, **kwargs: Any) -> t.ResolvePreferenceResponse:
        return self.client.resolve_preference(self.id, type, keep, **kwargs)

    def delete_preference(self, type: str) -> t.DeletePreferenceResponse:
        return self.client.delete_preference(self.id, type)

    def clear_preferences(self) -> t.ClearPreferencesResponse:
        return self.client.clear_preferences(self.id)

    def context(self) -> t.UserContextResponse:
        return self.client.user_context(self.id)

    def memories(self, **kwargs: Any) -> t.UserMemoriesResponse:
        return self.client.user_memories(self.id, **kwargs)

    def review_queue(self, **kwargs: Any) -> t.ReviewQueueResponse:
        return self.client.review_queue(self.id, **kwargs)

    def forget(self, **kwargs: Any) -> t.ForgetUserMemoriesResponse:
        return self.client.forget_user_memories(self.id, **kwargs)

    def delete(self) -> t.DeleteUserResponse:
        return self.client.delete_user(self.id)

    def put_session(self, session_id: str, **kwargs: Any) -> t.PutSessionResponse:
        return self.client.put_session(session_id, self.id, **kwargs)

    def list_sessions(self, **kwargs: Any) -> t.ListUserSessionsResponse:
        return self.client.list_sessions(self.id, **kwargs)

    def record_episode(
        self, agent_id: str, action_type: str, action_description: str, outcome: t.Outcome, **kwargs: Any
    ) -> t.RecordEpisodeResponse:
        return self.client.record_episode(self.id, agent_id, action_type, action_description, outcome, **kwargs)

    def search_episodes(self, agent_id: str, q: str, **kwargs: Any) -> t.SearchEpisodesResponse:
        return self.client.search_episodes(self.id, agent_id, q, **kwargs)

    def recent_episodes(self, agent_id: str, **kwargs: Any) -> t.RecentEpisodesResponse:
        return self.client.recent_episodes(self.id, agent_id, **kwargs)

    def store_fact(self, category: t.FactCategory, fact: str, **kwargs: Any) -> t.StoreFactResponse:
        return self.client.store_fact(category, fact, user_id=self.id, **kwargs)

    def search_facts(self, q: str, **kwargs: Any) -> t.SearchFactsResponse:
        return self.client.search_facts(q, user_id=self.id, **kwargs)

    def list_facts(self, **kwargs: Any) -> t.FactsByKeywordResponse:
        return self.client.list_facts(user_id=self.id, **kwargs)

    def search(self, query: str, **kwargs: Any) -> t.SearchResponse:
        return self.client.search(query, user_id=self.id, **kwargs)

    def stats(self, **kwargs: Any) -> t.StatsResponse:
        return self.client.stats(user_id=self.id, **kwargs)

    def list_memories(self, **kwargs: Any) -> t.ListMemoriesResponse:
        return self.client.list_memories(user_id=self.id, **kwargs)

    def add_memory(self, content: str, **kwargs: Any) -> t.AddMemoryResponse:
        return self.client.add_memory(content, user_id=self.id, **kwargs)
