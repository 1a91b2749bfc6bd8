"""loci: a client for loci, long-term memory for AI agents.

    from loci import Client
    client = Client()                      # $LOCI_URL, else http://127.0.0.1:8420
    writer = client.agent("writer")
    writer.remember("tone", "friendly")
    print(writer.recall("tone")["value"])  # friendly

:class:`AsyncClient` has the same methods as coroutines, for asyncio.
Standard library only; Python 3.9 or later.
"""

from .aio import AsyncAgentClient, AsyncClient, AsyncUserClient
from .client import DEFAULT_URL, UNSET, AgentClient, Client, UserClient, __version__
from .errors import (
    Conflict,
    Forbidden,
    Invalid,
    LociError,
    NotFound,
    RateLimited,
    ServerError,
    StorageFull,
    TooLarge,
    TransportError,
    Unauthorized,
    Unavailable,
)

__all__ = [
    "Client",
    "AgentClient",
    "UserClient",
    "AsyncClient",
    "AsyncAgentClient",
    "AsyncUserClient",
    "DEFAULT_URL",
    "UNSET",
    "LociError",
    "Invalid",
    "Unauthorized",
    "Forbidden",
    "NotFound",
    "Conflict",
    "TooLarge",
    "RateLimited",
    "ServerError",
    "Unavailable",
    "StorageFull",
    "TransportError",
    "__version__",
]
