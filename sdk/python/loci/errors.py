"""The errors a loci client raises: one class per code of the error envelope.

Every failure the server answers is ``{"success": false, "error": "...",
"code": "..."}``; the client raises the class of its code, carrying the
server's message. A request that gets no answer at all raises
:class:`TransportError`.
"""

import json
from typing import Any, Dict, Mapping, Optional, Type

__all__ = [
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
    "error_from_response",
]


class LociError(Exception):
    """Any error of the loci client.

    Attributes: ``message`` (the server's message), ``code`` (the envelope's
    code, e.g. ``"not_found"``; None when no answer came), ``status`` (the
    HTTP status, or None), ``retry_after`` (seconds the server asked to wait,
    or None) and ``body`` (the decoded answer, or None).
    """

    code = None  # type: Optional[str]

    def __init__(
        self,
        message: str,
        code: Optional[str] = None,
        status: Optional[int] = None,
        retry_after: Optional[float] = None,
        body: Any = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        self.status = status
        self.retry_after = retry_after
        self.body = body

    def __str__(self) -> str:
        if self.status is None:
            return self.message
        return "%s (%s %s)" % (self.message, self.status, self.code)


class Invalid(LociError):
    """400 ``invalid``: the request is malformed or breaks a rule."""

    code = "invalid"


class Unauthorized(LociError):
    """401 ``unauthorized``: no valid API key was presented."""

    code = "unauthorized"


class Forbidden(LociError):
    """403 ``forbidden``: the key's role or agent binding does not allow it."""

    code = "forbidden"


class NotFound(LociError):
    """404 ``not_found``: what the path names does not exist."""

    code = "not_found"


class Conflict(LociError):
    """409 ``conflict``: it already exists, or ``expected_version`` is stale."""

    code = "conflict"


class TooLarge(LociError):
    """413 ``too_large``: over a size limit (a block's limit, 50 KB of working memory, the body limit)."""

    code = "too_large"


class RateLimited(LociError):
    """429 ``rate_limited``: too many requests; ``retry_after`` says how long to wait."""

    code = "rate_limited"


class ServerError(LociError):
    """500 ``internal``, or any other failure the server answered without a known code."""

    code = "internal"


class Unavailable(ServerError):
    """503 ``unavailable``: the server cannot reach its storage for now; ``retry_after`` says how long to wait."""

    code = "unavailable"


class StorageFull(ServerError):
    """507 ``storage_full``: the server's disk is full; reads still work, writes fail until an
    operator frees space. Never retried: a full disk does not heal in seconds."""

    code = "storage_full"


class TransportError(LociError):
    """No answer: the connection was refused or broken, or the request timed out (``timed_out``)."""

    code = None
    timed_out = False


_BY_CODE = {
    "invalid": Invalid,
    "unauthorized": Unauthorized,
    "forbidden": Forbidden,
    "not_found": NotFound,
    "conflict": Conflict,
    "too_large": TooLarge,
    "rate_limited": RateLimited,
    "internal": ServerError,
    "unavailable": Unavailable,
    "storage_full": StorageFull,
}  # type: Dict[str, Type[LociError]]

_BY_STATUS = {
    400: Invalid,
    401: Unauthorized,
    403: Forbidden,
    404: NotFound,
    405: Invalid,
    409: Conflict,
    413: TooLarge,
    429: RateLimited,
    503: Unavailable,
    507: StorageFull,
}  # type: Dict[int, Type[LociError]]


def parse_retry_after(value: Optional[str]) -> Optional[float]:
    """The seconds a Retry-After header asks for (delta-seconds or an HTTP date), or None."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(int(value)))
    except ValueError:
        pass
    try:
        import email.utils
        import time

        when = email.utils.parsedate_to_datetime(value)
        return max(0.0, when.timestamp() - time.time())
    except (TypeError, ValueError, IndexError, OverflowError):
        return None


def error_from_response(status: int, body: bytes, headers: Mapping[str, str]) -> LociError:
    """The error for a failed answer: the class of the envelope's code, else of the HTTP status."""
    decoded = None  # type: Any
    message = ""
    code = None  # type: Optional[str]
    try:
        decoded = json.loads(body.decode("utf-8")) if body else None
    except (ValueError, UnicodeDecodeError):
        decoded = None
    if isinstance(decoded, dict):
        if isinstance(decoded.get("error"), str):
            message = decoded["error"]
        if isinstance(decoded.get("code"), str):
            code = decoded["code"]
    if not message:
        message = body.decode("utf-8", "replace").strip()[:500] or "HTTP %d" % status
    cls = _BY_CODE.get(code or "")
    if cls is None:
        cls = _BY_STATUS.get(status)
    if cls is None:
        cls = ServerError if status >= 500 else LociError
    retry_after = parse_retry_after(_header(headers, "Retry-After"))
    return cls(message, code=code or cls.code, status=status, retry_after=retry_after, body=decoded)


def _header(headers: Mapping[str, str], name: str) -> Optional[str]:
    get = getattr(headers, "get", None)
    value = get(name) if get else None
    if value is None:
        for k, v in headers.items():
            if k.lower() == name.lower():
                return v
    return value
