"""The types of loci's REST API, generated from its OpenAPI document.

Do not edit: run ``python3 tools/gen_types.py`` in sdk/python after the
document (httpapi/openapi.json) changes.
"""

from typing import Any, Dict, List, Literal, Optional, TypedDict, Union

__all__ = [
    "APIKey",
    "Action",
    "Agent",
    "AsyncEvent",
    "AuditEntry",
    "Block",
    "BlockLink",
    "BlockSpec",
    "BlockVersion",
    "ContextSession",
    "DayCount",
    "Episode",
    "EpisodeFeedback",
    "EpisodeInput",
    "ErrorEnvelope",
    "EventAccepted",
    "Explanation",
    "Fact",
    "FactCategory",
    "FactInput",
    "FactStatus",
    "ImportResult",
    "Kind",
    "MaintenanceResult",
    "MaintenanceTask",
    "MemoryEvent",
    "MemoryFilter",
    "MemoryInput",
    "MemoryPatch",
    "MemoryUpdate",
    "MemoryVersion",
    "Message",
    "MessageEvent",
    "MessagesInput",
    "MessagesResult",
    "Metadata",
    "Note",
    "NoteVersion",
    "Outcome",
    "Passage",
    "PassageResult",
    "Preference",
    "PreferenceSource",
    "RememberResult",
    "Retrieval",
    "ReviewItem",
    "Role",
    "ScopeCount",
    "ScoredEpisode",
    "ScoredFact",
    "SearchResult",
    "Session",
    "SessionSummary",
    "SignalScore",
    "SkippedMessage",
    "Stats",
    "Success",
    "Tier",
    "UserMemory",
    "UserSummary",
    "WorkingEntry",
    "HealthResponse",
    "ReadyResponse",
    "ListAgentsResponse",
    "CreateAgentResponse",
    "DeleteAgentResponse",
    "GetAgentResponse",
    "ListBlocksResponse",
    "CreateBlockResponse",
    "GetBlockResponse",
    "SetBlockResponse",
    "BlockHistoryResponse",
    "RecallAllResponse",
    "ForgetResponse",
    "RecallResponse",
    "RememberResponse",
    "NoteHistoryResponse",
    "ListPassagesResponse",
    "AddPassageResponse",
    "SearchPassagesResponse",
    "DeletePassageResponse",
    "AuditResponse",
    "ListBlockConsumersResponse",
    "DetachBlockResponse",
    "AttachBlockResponse",
    "RecentEpisodesResponse",
    "RecordEpisodeResponse",
    "SearchEpisodesResponse",
    "DeleteEpisodeResponse",
    "GetEpisodeResponse",
    "EpisodeFeedbackResponse",
    "GetEventResponse",
    "FactsByKeywordResponse",
    "StoreFactResponse",
    "SearchFactsResponse",
    "DeleteFactResponse",
    "GetFactResponse",
    "ContradictFactResponse",
    "FactHistoryResponse",
    "InvalidateFactResponse",
    "ResolveFactResponse",
    "ValidateFactResponse",
    "ImportResponse",
    "ListKeysResponse",
    "CreateKeyResponse",
    "RevokeKeyResponse",
    "MaintainResponse",
    "ListMemoriesResponse",
    "AddMemoryResponse",
    "BatchMemoriesResponse",
    "DeleteMemoryResponse",
    "GetMemoryResponse",
    "PatchMemoryResponse",
    "MemoryHistoryResponse",
    "OpenapiResponse",
    "SearchResponse",
    "DeleteSessionResponse",
    "GetSessionResponse",
    "PutSessionResponse",
    "AppendMessageResponse",
    "StatsResponse",
    "ClearWorkingResponse",
    "ListWorkingResponse",
    "DeleteWorkingResponse",
    "GetWorkingResponse",
    "SetWorkingResponse",
    "ListUsersResponse",
    "DeleteUserResponse",
    "UserContextResponse",
    "ForgetUserMemoriesResponse",
    "UserMemoriesResponse",
    "ClearPreferencesResponse",
    "ListPreferencesResponse",
    "ObservePreferenceResponse",
    "DeletePreferenceResponse",
    "ConfirmPreferenceResponse",
    "ContradictPreferenceResponse",
    "ResolvePreferenceResponse",
    "UsePreferenceResponse",
    "ReviewQueueResponse",
    "ListUserSessionsResponse",
    "WhoamiResponse",
]


class _APIKeyRequired(TypedDict):
    created_at: str
    id: str
    role: "Role"
    workspace: str


class APIKey(_APIKeyRequired, total=False):
    agent_id: str
    name: str
    revoked_at: str


Action = Literal["created", "updated"]


class Agent(TypedDict):
    created_at: str
    id: str
    name: str


class _AsyncEventRequired(TypedDict):
    attempts: int
    created_at: str
    event_id: str
    status: Literal["PENDING", "SUCCEEDED", "FAILED"]
    updated_at: str


class AsyncEvent(_AsyncEventRequired, total=False):
    """An add of messages run in the background; once SUCCEEDED, its results as a synchronous add answers them."""

    code: str
    error: str
    inference: Dict[str, Any]
    results: List["MessageEvent"]
    session: Dict[str, Any]
    skipped: List["SkippedMessage"]


class _AuditEntryRequired(TypedDict):
    count: int
    id: str
    operation: str
    record_ids: Optional[List[str]]
    status: int
    time: str
    workspace: str


class AuditEntry(_AuditEntryRequired, total=False):
    """One entry of the access log: every operation writes one, whatever the interface (in its own transaction when it writes)."""

    agent_id: str
    dry_run: bool
    key_id: str
    kind: "Kind"
    role: "Role"
    session_id: str
    task_id: str
    user_id: str
    via: Literal["rest", "mcp", "cli", "library"]


class _BlockRequired(TypedDict):
    content: str
    created_at: str
    id: str
    is_shared: bool
    label: str
    limit: int
    owner_agent_id: str
    updated_at: str
    version: int


class Block(_BlockRequired, total=False):
    """A core memory block, rendered into the agent's prompt."""

    metadata: "Metadata"


class BlockLink(TypedDict):
    agent_id: str
    block_id: str
    created_at: str


class _BlockSpecRequired(TypedDict):
    label: str


class BlockSpec(_BlockSpecRequired, total=False):
    content: str
    limit: int


class BlockVersion(TypedDict):
    content: str
    limit: int
    updated_at: str
    version: int


class _ContextSessionRequired(TypedDict):
    confidence: float
    is_persistent: bool
    message_count: int
    session_id: str
    updated_at: str


class ContextSession(_ContextSessionRequired, total=False):
    context: Any
    expires_at: str
    summary: str


class DayCount(TypedDict):
    count: int
    date: str
    total: int


class _EpisodeRequired(TypedDict):
    action_description: str
    action_type: str
    agent_id: str
    confidence_score: Optional[float]
    created_at: str
    expires_at: str
    id: str
    outcome: "Outcome"
    user_id: str


class Episode(_EpisodeRequired, total=False):
    """A past action of an agent and its outcome."""

    context: Any
    metadata: "Metadata"
    outcome_details: Any
    user_feedback: "EpisodeFeedback"


class EpisodeFeedback(TypedDict, total=False):
    comment: str
    corrections: Any
    rating: float


class _EpisodeInputRequired(TypedDict):
    action_description: str
    action_type: str
    agent_id: str
    outcome: "Outcome"
    user_id: str


class EpisodeInput(_EpisodeInputRequired, total=False):
    confidence_score: float
    context: Any
    outcome_details: Any


class ErrorEnvelope(TypedDict):
    """Every failure is answered in this envelope."""

    code: Literal["invalid", "unauthorized", "forbidden", "not_found", "conflict", "too_large", "rate_limited", "internal"]
    error: str
    success: Literal[False]


class EventAccepted(TypedDict):
    event_id: str
    status: Literal["PENDING"]


class _ExplanationRequired(TypedDict):
    fused: float
    recency: float
    score: float
    signals: Dict[str, "SignalScore"]


class Explanation(_ExplanationRequired, total=False):
    """How a search result's score and rank were made."""

    confidence: float
    context: float
    date: float
    meaning: float
    mmr_rank: int
    rank: float
    session: float
    words: float


class _FactRequired(TypedDict):
    access_count: int
    category: "FactCategory"
    contradiction_count: int
    created_at: str
    fact: str
    id: str
    is_validated: bool
    keywords: Optional[List[str]]
    relevance_score: float
    status: "FactStatus"
    updated_at: str
    valid_at: str


class Fact(_FactRequired, total=False):
    """A long-term fact, about a user or global. A fact with a `key` supersedes the one of its key that was true at its `valid_at`, which is kept as history."""

    agent_id: str
    evidence: Any
    invalid_at: str
    key: str
    last_accessed_at: str
    metadata: "Metadata"
    superseded_by: str
    supersedes: str
    user_id: str
    validated_at: str


FactCategory = str


class _FactInputRequired(TypedDict):
    category: "FactCategory"
    fact: str


class FactInput(_FactInputRequired, total=False):
    agent_id: str
    evidence: Any
    key: str
    keywords: List[str]
    user_id: str
    valid_at: str


FactStatus = Literal["current", "disputed", "future", "superseded", "invalidated"]


class ImportResult(TypedDict):
    agents: int
    block_links: int
    records: int
    skipped: int
    users: int
    versions: int


Kind = Literal["note", "block", "passage", "working", "episode", "fact", "preference", "session"]


class MaintenanceResult(TypedDict):
    created: int
    deleted: int
    ids: Optional[List[str]]
    updated: int


MaintenanceTask = Literal["consolidate", "decay", "prune", "expire"]


class _MemoryEventRequired(TypedDict):
    event: Literal["ADD", "UPDATE", "NOOP", "DELETE"]
    id: str
    kind: "Kind"


class MemoryEvent(_MemoryEventRequired, total=False):
    """What one write did."""

    previous_id: str
    version: int


MemoryFilter = Dict[str, Any]


class _MemoryInputRequired(TypedDict):
    content: str


class MemoryInput(_MemoryInputRequired, total=False):
    agent_id: str
    category: str
    expires_at: str
    key: str
    kind: Literal["note", "passage", "fact"]
    metadata: "Metadata"
    session_id: str
    tags: List[str]
    ttl_seconds: int
    user_id: str


class MemoryPatch(TypedDict, total=False):
    content: str
    expires_at: Union[str, None]
    metadata: Union["Metadata", None]
    tags: List[str]
    ttl_seconds: int


class _MemoryUpdateRequired(TypedDict):
    id: str


class MemoryUpdate(_MemoryUpdateRequired, total=False):
    content: str
    expires_at: Union[str, None]
    metadata: Union["Metadata", None]
    tags: List[str]
    ttl_seconds: int


class _MemoryVersionRequired(TypedDict):
    content: str
    current: bool
    event: Literal["ADD", "UPDATE"]
    id: str
    updated_at: str
    version: int


class MemoryVersion(_MemoryVersionRequired, total=False):
    """One value a memory has had."""

    metadata: "Metadata"


class _MessageRequired(TypedDict):
    content: str
    role: str


class Message(_MessageRequired, total=False):
    created_at: str


class _MessageEventRequired(TypedDict):
    content: str
    event: Literal["ADD", "UPDATE", "DELETE", "NOOP"]
    id: str
    kind: "Kind"


class MessageEvent(_MessageEventRequired, total=False):
    """One memory an add of messages wrote or found."""

    about: Literal["user", "agent"]
    index: int
    previous: str
    previous_id: str
    role: str


MessagesInput = TypedDict("MessagesInput", {
    "agent_id": str,
    "async": bool,
    "expires_at": str,
    "infer": Union[bool, Literal["fallback"]],
    "messages": List[Dict[str, Any]],
    "metadata": "Metadata",
    "session_id": str,
    "ttl_seconds": int,
    "user_id": str,
}, total=False)


class _MessagesResultRequired(TypedDict):
    results: List["MessageEvent"]
    skipped: List["SkippedMessage"]


class MessagesResult(_MessagesResultRequired, total=False):
    """What an add of messages did."""

    inference: Dict[str, Any]
    session: Dict[str, Any]


Metadata = Dict[str, Any]


class _NoteRequired(TypedDict):
    key: str
    updated_at: str
    value: Any


class Note(_NoteRequired, total=False):
    """An agent's key-value memory."""

    metadata: "Metadata"


class NoteVersion(TypedDict):
    updated_at: str
    value: Any
    version: int


Outcome = Literal["success", "partial", "failure"]


class _PassageRequired(TypedDict):
    agent_id: str
    content: str
    created_at: str
    id: str
    tags: Optional[List[str]]


class Passage(_PassageRequired, total=False):
    """An archival passage of an agent."""

    metadata: "Metadata"


class _PassageResultRequired(TypedDict):
    agent_id: str
    content: str
    created_at: str
    id: str
    metadata: "Metadata"
    tags: Optional[List[str]]
    score: float


class PassageResult(_PassageResultRequired, total=False):
    explain: "Explanation"
    match: Literal["scope"]


class _PreferenceRequired(TypedDict):
    confidence: int
    created_at: str
    first_observed: str
    flagged_for_removal: bool
    is_persistent: bool
    last_used_at: str
    learned_from: str
    observation_count: int
    peak: int
    source: "PreferenceSource"
    stored_confidence: int
    tier: "Tier"
    type: str
    updated_at: str
    user_id: str
    value: Any


class Preference(_PreferenceRequired, total=False):
    """A user's preference with its confidence."""

    context: str
    metadata: "Metadata"
    session_id: str


PreferenceSource = Literal["explicit", "implicit", "decision"]


class RememberResult(TypedDict):
    action: "Action"
    key: str
    message: str
    updated_at: str


class Retrieval(TypedDict):
    """How the search ranked: a search is lexical when no embedding model is configured, or when the model did not answer for this query."""

    mode: Literal["lexical", "hybrid"]
    model: Optional[str]


ReviewItem = Union[Dict[str, Any], Dict[str, Any]]


Role = Literal["viewer", "creator", "editor", "admin"]


class ScopeCount(TypedDict):
    count: int
    id: str


class _ScoredEpisodeRequired(TypedDict):
    action_description: str
    action_type: str
    agent_id: str
    confidence_score: Optional[float]
    created_at: str
    expires_at: str
    id: str
    metadata: "Metadata"
    outcome: "Outcome"
    user_id: str
    score: float


class ScoredEpisode(_ScoredEpisodeRequired, total=False):
    context: Any
    outcome_details: Any
    user_feedback: "EpisodeFeedback"
    explain: "Explanation"
    match: Literal["scope"]


class _ScoredFactRequired(TypedDict):
    access_count: int
    category: "FactCategory"
    contradiction_count: int
    created_at: str
    fact: str
    id: str
    is_validated: bool
    keywords: Optional[List[str]]
    metadata: "Metadata"
    relevance_score: float
    status: "FactStatus"
    updated_at: str
    valid_at: str
    score: float


class ScoredFact(_ScoredFactRequired, total=False):
    agent_id: str
    evidence: Any
    invalid_at: str
    key: str
    last_accessed_at: str
    superseded_by: str
    supersedes: str
    user_id: str
    validated_at: str
    explain: "Explanation"
    match: Literal["scope"]


class _SearchResultRequired(TypedDict):
    content: str
    created_at: str
    id: str
    kind: "Kind"
    scope: Dict[str, Any]
    score: float
    updated_at: str


class SearchResult(_SearchResultRequired, total=False):
    """A record found by a search across kinds."""

    explain: "Explanation"
    key: str
    match: Literal["scope"]
    metadata: "Metadata"
    tags: List[str]


class _SessionRequired(TypedDict):
    confidence: float
    context: Any
    created_at: str
    is_persistent: bool
    message_count: int
    messages: Optional[List["Message"]]
    session_id: str
    summary: str
    updated_at: str
    user_id: str


class Session(_SessionRequired, total=False):
    """A conversation session with its messages."""

    expires_at: str
    metadata: "Metadata"


class _SessionSummaryRequired(TypedDict):
    message_count: int
    session_id: str
    summary: str
    updated_at: str


class SessionSummary(_SessionSummaryRequired, total=False):
    metadata: "Metadata"


class SignalScore(TypedDict):
    rank: int
    score: float


class SkippedMessage(TypedDict):
    index: int
    reason: str
    role: str


class _StatsRequired(TypedDict):
    agents: int
    at: str
    embeddings: Dict[str, Any]
    growth: List["DayCount"]
    kinds: Dict[str, int]
    newest: List["UserMemory"]
    top_agents: List["ScopeCount"]
    top_users: List["ScopeCount"]
    total: int
    users: int


class Stats(_StatsRequired, total=False):
    """An overview of the workspace's memory, or of one agent's or user's."""

    agent_id: str
    user_id: str


class Success(TypedDict):
    success: Literal[True]


Tier = Literal["high", "medium", "low"]


class _UserMemoryRequired(TypedDict):
    access_count: int
    confidence: float
    content: str
    created_at: str
    id: str
    kind: "Kind"
    updated_at: str


class UserMemory(_UserMemoryRequired, total=False):
    """Any record about a user, of any kind."""

    action_type: str
    agent_id: str
    category: str
    data: Any
    expires_at: str
    history: bool
    invalid_at: str
    key: str
    last_accessed_at: str
    metadata: "Metadata"
    outcome: str
    review: Literal["disputed", "flagged_for_removal"]
    session_id: str
    tags: List[str]
    task_id: str
    user_id: str
    valid_at: str
    version: int


class UserSummary(TypedDict):
    """A user of the workspace: registered, or named by a record."""

    created_at: str
    memories: int
    updated_at: str
    user_id: str


class _WorkingEntryRequired(TypedDict):
    agent_id: str
    expires_at: str
    key: str
    task_id: str
    updated_at: str
    value: Any


class WorkingEntry(_WorkingEntryRequired, total=False):
    """A task's short-lived working memory entry."""

    created_at: str
    metadata: "Metadata"
    user_id: str


class HealthResponse(TypedDict):
    """The answer of GET /healthz."""

    success: Literal[True]
    status: Literal["ok"]


class _ReadyResponseRequired(TypedDict):
    success: Literal[True]
    status: Literal["ready"]
    writes: Literal["ok", "storage_full"]


class ReadyResponse(_ReadyResponseRequired, total=False):
    """The answer of GET /readyz."""

    retrieval: "Retrieval"


class ListAgentsResponse(TypedDict):
    """The answer of GET /v1/agents."""

    success: Literal[True]
    agents: List["Agent"]
    count: int


class CreateAgentResponse(TypedDict):
    """The answer of POST /v1/agents."""

    success: Literal[True]
    blocks: List["Block"]
    created_at: str
    id: str
    name: str


DeleteAgentResponse = "Success"


class GetAgentResponse(TypedDict):
    """The answer of GET /v1/agents/{agent_id}."""

    success: Literal[True]
    created_at: str
    id: str
    name: str


class ListBlocksResponse(TypedDict):
    """The answer of GET /v1/agents/{agent_id}/blocks."""

    success: Literal[True]
    blocks: List["Block"]
    count: int


class _CreateBlockResponseRequired(TypedDict):
    success: Literal[True]
    content: str
    created_at: str
    id: str
    is_shared: bool
    label: str
    limit: int
    owner_agent_id: str
    updated_at: str
    version: int


class CreateBlockResponse(_CreateBlockResponseRequired, total=False):
    """The answer of POST /v1/agents/{agent_id}/blocks."""

    metadata: "Metadata"


class _GetBlockResponseRequired(TypedDict):
    success: Literal[True]
    content: str
    created_at: str
    id: str
    is_shared: bool
    label: str
    limit: int
    owner_agent_id: str
    updated_at: str
    version: int


class GetBlockResponse(_GetBlockResponseRequired, total=False):
    """The answer of GET /v1/agents/{agent_id}/blocks/{label}."""

    metadata: "Metadata"


class _SetBlockResponseRequired(TypedDict):
    success: Literal[True]
    content: str
    created_at: str
    id: str
    is_shared: bool
    label: str
    limit: int
    owner_agent_id: str
    updated_at: str
    version: int
    action: "Action"


class SetBlockResponse(_SetBlockResponseRequired, total=False):
    """The answer of PUT /v1/agents/{agent_id}/blocks/{label}."""

    metadata: "Metadata"


class BlockHistoryResponse(TypedDict):
    """The answer of GET /v1/agents/{agent_id}/blocks/{label}/history."""

    success: Literal[True]
    count: int
    label: str
    versions: List["BlockVersion"]


class RecallAllResponse(TypedDict):
    """The answer of GET /v1/agents/{agent_id}/notes."""

    success: Literal[True]
    count: int
    memories: List["Note"]


ForgetResponse = "Success"


class _RecallResponseRequired(TypedDict):
    success: Literal[True]
    key: str
    updated_at: str
    value: Any


class RecallResponse(_RecallResponseRequired, total=False):
    """The answer of GET /v1/agents/{agent_id}/notes/{key}."""

    metadata: "Metadata"


class RememberResponse(TypedDict):
    """The answer of PUT /v1/agents/{agent_id}/notes/{key}."""

    success: Literal[True]
    action: "Action"
    key: str
    message: str
    updated_at: str


class NoteHistoryResponse(TypedDict):
    """The answer of GET /v1/agents/{agent_id}/notes/{key}/history."""

    success: Literal[True]
    count: int
    key: str
    versions: List["NoteVersion"]


class ListPassagesResponse(TypedDict):
    """The answer of GET /v1/agents/{agent_id}/passages."""

    success: Literal[True]
    count: int
    passages: List["Passage"]


class AddPassageResponse(TypedDict):
    """The answer of POST /v1/agents/{agent_id}/passages."""

    success: Literal[True]
    created_at: str
    event: Literal["ADD", "UPDATE", "NOOP"]
    id: str
    tags: Optional[List[str]]


class SearchPassagesResponse(TypedDict):
    """The answer of GET /v1/agents/{agent_id}/passages/search."""

    success: Literal[True]
    count: int
    pending_embeddings: int
    results: List["PassageResult"]
    retrieval: "Retrieval"


DeletePassageResponse = "Success"


class AuditResponse(TypedDict):
    """The answer of GET /v1/audit."""

    success: Literal[True]
    count: int
    entries: List["AuditEntry"]


class ListBlockConsumersResponse(TypedDict):
    """The answer of GET /v1/blocks/{block_id}/consumers."""

    success: Literal[True]
    block_id: str
    consumers: List["BlockLink"]
    count: int


DetachBlockResponse = "Success"


class AttachBlockResponse(TypedDict):
    """The answer of PUT /v1/blocks/{block_id}/consumers/{agent_id}."""

    success: Literal[True]
    agent_id: str
    block_id: str


class RecentEpisodesResponse(TypedDict):
    """The answer of GET /v1/episodes."""

    success: Literal[True]
    count: int
    episodes: List["Episode"]


class RecordEpisodeResponse(TypedDict):
    """The answer of POST /v1/episodes."""

    success: Literal[True]
    created_at: str
    expires_at: str
    id: str


class SearchEpisodesResponse(TypedDict):
    """The answer of GET /v1/episodes/search."""

    success: Literal[True]
    count: int
    pending_embeddings: int
    results: List["ScoredEpisode"]
    retrieval: "Retrieval"


DeleteEpisodeResponse = "Success"


class _GetEpisodeResponseRequired(TypedDict):
    success: Literal[True]
    action_description: str
    action_type: str
    agent_id: str
    confidence_score: Optional[float]
    created_at: str
    expires_at: str
    id: str
    outcome: "Outcome"
    user_id: str


class GetEpisodeResponse(_GetEpisodeResponseRequired, total=False):
    """The answer of GET /v1/episodes/{id}."""

    context: Any
    metadata: "Metadata"
    outcome_details: Any
    user_feedback: "EpisodeFeedback"


class _EpisodeFeedbackResponseRequired(TypedDict):
    success: Literal[True]
    action_description: str
    action_type: str
    agent_id: str
    confidence_score: Optional[float]
    created_at: str
    expires_at: str
    id: str
    outcome: "Outcome"
    user_id: str


class EpisodeFeedbackResponse(_EpisodeFeedbackResponseRequired, total=False):
    """The answer of POST /v1/episodes/{id}/feedback."""

    context: Any
    metadata: "Metadata"
    outcome_details: Any
    user_feedback: "EpisodeFeedback"


class _GetEventResponseRequired(TypedDict):
    success: Literal[True]
    attempts: int
    created_at: str
    event_id: str
    status: Literal["PENDING", "SUCCEEDED", "FAILED"]
    updated_at: str


class GetEventResponse(_GetEventResponseRequired, total=False):
    """The answer of GET /v1/events/{event_id}."""

    code: str
    error: str
    inference: Dict[str, Any]
    results: List["MessageEvent"]
    session: Dict[str, Any]
    skipped: List["SkippedMessage"]


class FactsByKeywordResponse(TypedDict):
    """The answer of GET /v1/facts."""

    success: Literal[True]
    count: int
    facts: List["Fact"]


class _StoreFactResponseRequired(TypedDict):
    success: Literal[True]
    access_count: int
    category: "FactCategory"
    contradiction_count: int
    created_at: str
    fact: str
    id: str
    is_validated: bool
    keywords: Optional[List[str]]
    relevance_score: float
    status: "FactStatus"
    updated_at: str
    valid_at: str


class StoreFactResponse(_StoreFactResponseRequired, total=False):
    """The answer of POST /v1/facts."""

    agent_id: str
    evidence: Any
    invalid_at: str
    key: str
    last_accessed_at: str
    metadata: "Metadata"
    superseded_by: str
    supersedes: str
    user_id: str
    validated_at: str


class SearchFactsResponse(TypedDict):
    """The answer of GET /v1/facts/search."""

    success: Literal[True]
    count: int
    pending_embeddings: int
    results: List["ScoredFact"]
    retrieval: "Retrieval"


DeleteFactResponse = "Success"


class _GetFactResponseRequired(TypedDict):
    success: Literal[True]
    access_count: int
    category: "FactCategory"
    contradiction_count: int
    created_at: str
    fact: str
    id: str
    is_validated: bool
    keywords: Optional[List[str]]
    relevance_score: float
    status: "FactStatus"
    updated_at: str
    valid_at: str


class GetFactResponse(_GetFactResponseRequired, total=False):
    """The answer of GET /v1/facts/{id}."""

    agent_id: str
    evidence: Any
    invalid_at: str
    key: str
    last_accessed_at: str
    metadata: "Metadata"
    superseded_by: str
    supersedes: str
    user_id: str
    validated_at: str


class _ContradictFactResponseRequired(TypedDict):
    success: Literal[True]
    access_count: int
    category: "FactCategory"
    contradiction_count: int
    created_at: str
    fact: str
    id: str
    is_validated: bool
    keywords: Optional[List[str]]
    relevance_score: float
    status: "FactStatus"
    updated_at: str
    valid_at: str


class ContradictFactResponse(_ContradictFactResponseRequired, total=False):
    """The answer of POST /v1/facts/{id}/contradict."""

    agent_id: str
    evidence: Any
    invalid_at: str
    key: str
    last_accessed_at: str
    metadata: "Metadata"
    superseded_by: str
    supersedes: str
    user_id: str
    validated_at: str


class FactHistoryResponse(TypedDict):
    """The answer of GET /v1/facts/{id}/history."""

    success: Literal[True]
    count: int
    facts: List["Fact"]


class _InvalidateFactResponseRequired(TypedDict):
    success: Literal[True]
    access_count: int
    category: "FactCategory"
    contradiction_count: int
    created_at: str
    fact: str
    id: str
    is_validated: bool
    keywords: Optional[List[str]]
    relevance_score: float
    status: "FactStatus"
    updated_at: str
    valid_at: str


class InvalidateFactResponse(_InvalidateFactResponseRequired, total=False):
    """The answer of POST /v1/facts/{id}/invalidate."""

    agent_id: str
    evidence: Any
    invalid_at: str
    key: str
    last_accessed_at: str
    metadata: "Metadata"
    superseded_by: str
    supersedes: str
    user_id: str
    validated_at: str


class _ResolveFactResponseRequired(TypedDict):
    success: Literal[True]
    access_count: int
    category: "FactCategory"
    contradiction_count: int
    created_at: str
    fact: str
    id: str
    is_validated: bool
    keywords: Optional[List[str]]
    relevance_score: float
    status: "FactStatus"
    updated_at: str
    valid_at: str


class ResolveFactResponse(_ResolveFactResponseRequired, total=False):
    """The answer of POST /v1/facts/{id}/resolve."""

    agent_id: str
    evidence: Any
    invalid_at: str
    key: str
    last_accessed_at: str
    metadata: "Metadata"
    superseded_by: str
    supersedes: str
    user_id: str
    validated_at: str


class _ValidateFactResponseRequired(TypedDict):
    success: Literal[True]
    access_count: int
    category: "FactCategory"
    contradiction_count: int
    created_at: str
    fact: str
    id: str
    is_validated: bool
    keywords: Optional[List[str]]
    relevance_score: float
    status: "FactStatus"
    updated_at: str
    valid_at: str


class ValidateFactResponse(_ValidateFactResponseRequired, total=False):
    """The answer of POST /v1/facts/{id}/validate."""

    agent_id: str
    evidence: Any
    invalid_at: str
    key: str
    last_accessed_at: str
    metadata: "Metadata"
    superseded_by: str
    supersedes: str
    user_id: str
    validated_at: str


class ImportResponse(TypedDict):
    """The answer of POST /v1/import."""

    success: Literal[True]
    agents: int
    block_links: int
    records: int
    skipped: int
    users: int
    versions: int


class ListKeysResponse(TypedDict):
    """The answer of GET /v1/keys."""

    success: Literal[True]
    count: int
    keys: Optional[List["APIKey"]]


class _CreateKeyResponseRequired(TypedDict):
    success: Literal[True]
    api_key: str
    created_at: str
    id: str
    role: "Role"
    workspace: str


class CreateKeyResponse(_CreateKeyResponseRequired, total=False):
    """The answer of POST /v1/keys."""

    agent_id: str
    name: str


RevokeKeyResponse = "Success"


class MaintainResponse(TypedDict):
    """The answer of POST /v1/maintenance."""

    success: Literal[True]
    dry_run: bool
    tasks: Dict[str, "MaintenanceResult"]


class ListMemoriesResponse(TypedDict):
    """The answer of GET /v1/memories."""

    success: Literal[True]
    count: int
    memories: List["UserMemory"]


class _AddMemoryResponseRequired(TypedDict):
    success: Literal[True]


class AddMemoryResponse(_AddMemoryResponseRequired, total=False):
    """The answer of POST /v1/memories."""

    event: Literal["ADD", "UPDATE", "NOOP", "DELETE"]
    id: str
    kind: "Kind"
    previous_id: str
    version: int
    inference: Dict[str, Any]
    results: List["MessageEvent"]
    session: Dict[str, Any]
    skipped: List["SkippedMessage"]


class BatchMemoriesResponse(TypedDict):
    """The answer of POST /v1/memories/batch."""

    success: Literal[True]
    count: int
    results: List["MemoryEvent"]


DeleteMemoryResponse = "Success"


class _GetMemoryResponseRequired(TypedDict):
    success: Literal[True]
    access_count: int
    confidence: float
    content: str
    created_at: str
    id: str
    kind: "Kind"
    updated_at: str


class GetMemoryResponse(_GetMemoryResponseRequired, total=False):
    """The answer of GET /v1/memories/{id}."""

    action_type: str
    agent_id: str
    category: str
    data: Any
    expires_at: str
    history: bool
    invalid_at: str
    key: str
    last_accessed_at: str
    metadata: "Metadata"
    outcome: str
    review: Literal["disputed", "flagged_for_removal"]
    session_id: str
    tags: List[str]
    task_id: str
    user_id: str
    valid_at: str
    version: int


class _PatchMemoryResponseRequired(TypedDict):
    success: Literal[True]
    event: Literal["ADD", "UPDATE", "NOOP", "DELETE"]
    id: str
    kind: "Kind"


class PatchMemoryResponse(_PatchMemoryResponseRequired, total=False):
    """The answer of PATCH /v1/memories/{id}."""

    previous_id: str
    version: int


class MemoryHistoryResponse(TypedDict):
    """The answer of GET /v1/memories/{id}/history."""

    success: Literal[True]
    count: int
    id: str
    versions: List["MemoryVersion"]


OpenapiResponse = Dict[str, Any]


class SearchResponse(TypedDict):
    """The answer of POST /v1/search."""

    success: Literal[True]
    count: int
    pending_embeddings: int
    results: List["SearchResult"]
    retrieval: "Retrieval"


class DeleteSessionResponse(TypedDict):
    """The answer of DELETE /v1/sessions/{session_id}."""

    success: Literal[True]
    deleted: bool


class _GetSessionResponseRequired(TypedDict):
    success: Literal[True]
    confidence: float
    context: Any
    created_at: str
    is_persistent: bool
    message_count: int
    messages: Optional[List["Message"]]
    session_id: str
    summary: str
    updated_at: str
    user_id: str


class GetSessionResponse(_GetSessionResponseRequired, total=False):
    """The answer of GET /v1/sessions/{session_id}."""

    expires_at: str
    metadata: "Metadata"


class _PutSessionResponseRequired(TypedDict):
    success: Literal[True]
    confidence: float
    context: Any
    created_at: str
    is_persistent: bool
    message_count: int
    messages: Optional[List["Message"]]
    session_id: str
    summary: str
    updated_at: str
    user_id: str
    action: "Action"


class PutSessionResponse(_PutSessionResponseRequired, total=False):
    """The answer of PUT /v1/sessions/{session_id}."""

    expires_at: str
    metadata: "Metadata"


class AppendMessageResponse(TypedDict):
    """The answer of POST /v1/sessions/{session_id}/messages."""

    success: Literal[True]
    index: int
    message_count: int
    session_id: str
    updated_at: str


class _StatsResponseRequired(TypedDict):
    success: Literal[True]
    agents: int
    at: str
    embeddings: Dict[str, Any]
    growth: List["DayCount"]
    kinds: Dict[str, int]
    newest: List["UserMemory"]
    top_agents: List["ScopeCount"]
    top_users: List["ScopeCount"]
    total: int
    users: int


class StatsResponse(_StatsResponseRequired, total=False):
    """The answer of GET /v1/stats."""

    agent_id: str
    user_id: str


class ClearWorkingResponse(TypedDict):
    """The answer of DELETE /v1/tasks/{task_id}/working."""

    success: Literal[True]
    deleted: int


class ListWorkingResponse(TypedDict):
    """The answer of GET /v1/tasks/{task_id}/working."""

    success: Literal[True]
    count: int
    task_id: str
    values: Dict[str, Any]
    working: Optional[List["WorkingEntry"]]


class DeleteWorkingResponse(TypedDict):
    """The answer of DELETE /v1/tasks/{task_id}/working/{key}."""

    success: Literal[True]
    deleted: int


class _GetWorkingResponseRequired(TypedDict):
    success: Literal[True]
    agent_id: str
    expires_at: str
    key: str
    task_id: str
    updated_at: str
    value: Any


class GetWorkingResponse(_GetWorkingResponseRequired, total=False):
    """The answer of GET /v1/tasks/{task_id}/working/{key}."""

    created_at: str
    metadata: "Metadata"
    user_id: str


class _SetWorkingResponseRequired(TypedDict):
    success: Literal[True]
    agent_id: str
    expires_at: str
    key: str
    task_id: str
    updated_at: str
    value: Any
    action: "Action"


class SetWorkingResponse(_SetWorkingResponseRequired, total=False):
    """The answer of PUT /v1/tasks/{task_id}/working/{key}."""

    created_at: str
    metadata: "Metadata"
    user_id: str


class ListUsersResponse(TypedDict):
    """The answer of GET /v1/users."""

    success: Literal[True]
    count: int
    users: List["UserSummary"]


class DeleteUserResponse(TypedDict):
    """The answer of DELETE /v1/users/{user_id}."""

    success: Literal[True]
    deleted: int


class UserContextResponse(TypedDict):
    """The answer of GET /v1/users/{user_id}/context."""

    success: Literal[True]
    created: bool
    defaults: Any
    preferences: Optional[List["Preference"]]
    sessions: Optional[List["ContextSession"]]
    user_id: str


class _ForgetUserMemoriesResponseRequired(TypedDict):
    success: Literal[True]
    agents_searched: bool
    count: int
    deleted: Optional[List["UserMemory"]]
    dry_run: bool


class ForgetUserMemoriesResponse(_ForgetUserMemoriesResponseRequired, total=False):
    """The answer of POST /v1/users/{user_id}/forget."""

    notice: str


class UserMemoriesResponse(TypedDict):
    """The answer of GET /v1/users/{user_id}/memories."""

    success: Literal[True]
    count: int
    memories: Dict[str, Any]
    user_id: str


class ClearPreferencesResponse(TypedDict):
    """The answer of DELETE /v1/users/{user_id}/preferences."""

    success: Literal[True]
    deleted: int


class ListPreferencesResponse(TypedDict):
    """The answer of GET /v1/users/{user_id}/preferences."""

    success: Literal[True]
    count: int
    preferences: List["Preference"]


class _ObservePreferenceResponseRequired(TypedDict):
    success: Literal[True]
    confidence: int
    created_at: str
    first_observed: str
    flagged_for_removal: bool
    is_persistent: bool
    last_used_at: str
    learned_from: str
    observation_count: int
    peak: int
    source: "PreferenceSource"
    stored_confidence: int
    tier: "Tier"
    type: str
    updated_at: str
    user_id: str
    value: Any
    action: "Action"


class ObservePreferenceResponse(_ObservePreferenceResponseRequired, total=False):
    """The answer of POST /v1/users/{user_id}/preferences."""

    context: str
    metadata: "Metadata"
    session_id: str


class DeletePreferenceResponse(TypedDict):
    """The answer of DELETE /v1/users/{user_id}/preferences/{type}."""

    success: Literal[True]
    deleted: int


class _ConfirmPreferenceResponseRequired(TypedDict):
    success: Literal[True]
    confidence: int
    created_at: str
    first_observed: str
    flagged_for_removal: bool
    is_persistent: bool
    last_used_at: str
    learned_from: str
    observation_count: int
    peak: int
    source: "PreferenceSource"
    stored_confidence: int
    tier: "Tier"
    type: str
    updated_at: str
    user_id: str
    value: Any


class ConfirmPreferenceResponse(_ConfirmPreferenceResponseRequired, total=False):
    """The answer of POST /v1/users/{user_id}/preferences/{type}/confirm."""

    context: str
    metadata: "Metadata"
    session_id: str


class _ContradictPreferenceResponseRequired(TypedDict):
    success: Literal[True]
    confidence: int
    created_at: str
    first_observed: str
    flagged_for_removal: bool
    is_persistent: bool
    last_used_at: str
    learned_from: str
    observation_count: int
    peak: int
    source: "PreferenceSource"
    stored_confidence: int
    tier: "Tier"
    type: str
    updated_at: str
    user_id: str
    value: Any


class ContradictPreferenceResponse(_ContradictPreferenceResponseRequired, total=False):
    """The answer of POST /v1/users/{user_id}/preferences/{type}/contradict."""

    context: str
    metadata: "Metadata"
    session_id: str


class _ResolvePreferenceResponseRequired(TypedDict):
    success: Literal[True]
    confidence: int
    created_at: str
    first_observed: str
    flagged_for_removal: bool
    is_persistent: bool
    last_used_at: str
    learned_from: str
    observation_count: int
    peak: int
    source: "PreferenceSource"
    stored_confidence: int
    tier: "Tier"
    type: str
    updated_at: str
    user_id: str
    value: Any
    kept: bool


class ResolvePreferenceResponse(_ResolvePreferenceResponseRequired, total=False):
    """The answer of POST /v1/users/{user_id}/preferences/{type}/resolve."""

    context: str
    metadata: "Metadata"
    session_id: str


class _UsePreferenceResponseRequired(TypedDict):
    success: Literal[True]
    confidence: int
    created_at: str
    first_observed: str
    flagged_for_removal: bool
    is_persistent: bool
    last_used_at: str
    learned_from: str
    observation_count: int
    peak: int
    source: "PreferenceSource"
    stored_confidence: int
    tier: "Tier"
    type: str
    updated_at: str
    user_id: str
    value: Any


class UsePreferenceResponse(_UsePreferenceResponseRequired, total=False):
    """The answer of POST /v1/users/{user_id}/preferences/{type}/use."""

    context: str
    metadata: "Metadata"
    session_id: str


class ReviewQueueResponse(TypedDict):
    """The answer of GET /v1/users/{user_id}/review."""

    success: Literal[True]
    count: int
    items: List["ReviewItem"]


class ListUserSessionsResponse(TypedDict):
    """The answer of GET /v1/users/{user_id}/sessions."""

    success: Literal[True]
    count: int
    sessions: List["SessionSummary"]


class WhoamiResponse(TypedDict):
    """The answer of GET /v1/whoami."""

    success: Literal[True]
    agent_id: str
    auth: bool
    key_id: str
    role: "Role"
    workspace: str
