/**
 * @loci-memory/client: a typed client for loci, long-term memory for AI agents.
 *
 *     import { Client } from "@loci-memory/client";
 *     const writer = new Client().agent("writer");
 *     await writer.remember("tone", "friendly");
 */

export {
  AgentClient,
  Client,
  DEFAULT_URL,
  UserClient,
  VERSION,
  path,
  type AddedMemory,
  type AddedMessages,
  type Answer,
  type Body,
  type ClientOptions,
  type MemoryListQuery,
  type OperationId,
  type Query,
  type RetryInfo,
  type Schemas,
} from "./client.js";
export {
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
  errorFromResponse,
  parseRetryAfter,
} from "./errors.js";
export type { components, operations, paths } from "./schema.js";
