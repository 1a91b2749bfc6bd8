/**
 * The errors a loci client throws: one class per code of the error envelope
 * (`{"success": false, "error": "...", "code": "..."}`), carrying the
 * server's message. A request that gets no answer throws TransportError.
 */

/** LociError is any error of the loci client. */
export class LociError extends Error {
  /** The envelope's code, e.g. "not_found"; undefined when no answer came. */
  readonly code: string | undefined;
  /** The HTTP status, or undefined when no answer came. */
  readonly status: number | undefined;
  /** Seconds the server asked to wait (Retry-After), or undefined. */
  readonly retryAfter: number | undefined;
  /** The decoded answer, when it was JSON. */
  readonly body: unknown;

  constructor(
    message: string,
    init: { code?: string; status?: number; retryAfter?: number; body?: unknown; cause?: unknown } = {},
  ) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = new.target.name;
    this.code = init.code ?? (new.target as unknown as { code?: string }).code;
    this.status = init.status;
    this.retryAfter = init.retryAfter;
    this.body = init.body;
  }
}

/** 400 `invalid`: the request is malformed or breaks a rule. */
export class Invalid extends LociError {
  static readonly code = "invalid";
}

/** 401 `unauthorized`: no valid API key was presented. */
export class Unauthorized extends LociError {
  static readonly code = "unauthorized";
}

/** 403 `forbidden`: the key's role or agent binding does not allow it. */
export class Forbidden extends LociError {
  static readonly code = "forbidden";
}

/** 404 `not_found`: what the path names does not exist. */
export class NotFound extends LociError {
  static readonly code = "not_found";
}

/** 409 `conflict`: it already exists, or `expected_version` is stale. */
export class Conflict extends LociError {
  static readonly code = "conflict";
}

/** 413 `too_large`: over a size limit (a block's limit, 50 KB of working memory, the body limit). */
export class TooLarge extends LociError {
  static readonly code = "too_large";
}

/** 429 `rate_limited`: too many requests; `retryAfter` says how long to wait. */
export class RateLimited extends LociError {
  static readonly code = "rate_limited";
}

/** 500 `internal`, or any other failure answered without a known code. */
export class ServerError extends LociError {
  static readonly code: string = "internal";
}

/** 503 `unavailable`: the server cannot reach its storage for now; `retryAfter` says how long to wait. */
export class Unavailable extends ServerError {
  static override readonly code: string = "unavailable";
}

/**
 * 507 `storage_full`: the server's disk is full; reads still work, writes fail
 * until an operator frees space. Never retried: a full disk does not heal in seconds.
 */
export class StorageFull extends ServerError {
  static override readonly code: string = "storage_full";
}

/** No answer: the connection was refused or broken, or the request timed out (`timedOut`). */
export class TransportError extends LociError {
  readonly timedOut: boolean;

  constructor(message: string, init: { timedOut?: boolean; cause?: unknown } = {}) {
    super(message, { cause: init.cause });
    this.timedOut = init.timedOut ?? false;
  }
}

type ErrorClass = new (
  message: string,
  init?: { code?: string; status?: number; retryAfter?: number; body?: unknown },
) => LociError;

const byCode: Record<string, ErrorClass> = {
  invalid: Invalid,
  unauthorized: Unauthorized,
  forbidden: Forbidden,
  not_found: NotFound,
  conflict: Conflict,
  too_large: TooLarge,
  rate_limited: RateLimited,
  internal: ServerError,
  unavailable: Unavailable,
  storage_full: StorageFull,
};

const byStatus: Record<number, ErrorClass> = {
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
};

/** The seconds a Retry-After header asks for (delta-seconds or an HTTP date), or undefined. */
export function parseRetryAfter(value: string | null | undefined): number | undefined {
  if (!value) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v);
  const when = Date.parse(v);
  if (Number.isNaN(when)) return undefined;
  return Math.max(0, (when - Date.now()) / 1000);
}

/** The error for a failed answer: the class of the envelope's code, else of the HTTP status. */
export function errorFromResponse(status: number, text: string, headers: { get(name: string): string | null }): LociError {
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  let message = "";
  let code: string | undefined;
  if (body && typeof body === "object") {
    const env = body as { error?: unknown; code?: unknown };
    if (typeof env.error === "string") message = env.error;
    if (typeof env.code === "string") code = env.code;
  }
  if (!message) message = text.trim().slice(0, 500) || `HTTP ${status}`;
  const cls = (code !== undefined ? byCode[code] : undefined) ?? byStatus[status] ?? (status >= 500 ? ServerError : LociError);
  return new cls(message, { code, status, retryAfter: parseRetryAfter(headers.get("Retry-After")), body });
}
