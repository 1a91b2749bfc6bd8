/**
 * @loci-memory/ai-sdk: loci's MCP tools in the Vercel AI SDK.
 *
 *     import { createLociMCPClient } from "@loci-memory/ai-sdk";
 *     const mcp = await createLociMCPClient({ agentId: "writer", userId: "u1" });
 *     const result = await generateText({ model, tools: await mcp.tools(), prompt });
 *     await mcp.close();
 *
 * loci serves MCP over streamable HTTP at /mcp (`loci serve`). A connection
 * is bound to one agent, and optionally one user, when it is opened: the
 * X-Loci-Agent and X-Loci-User headers name them (a key bound to an agent
 * names its agent itself). No tool takes an agent or user id, so a model
 * cannot reach another agent's or user's memory.
 */

import { createMCPClient } from "@ai-sdk/mcp";
import type { MCPClient } from "@ai-sdk/mcp";

export interface LociMCPOptions {
  /** Where loci listens (default: $LOCI_URL, else http://127.0.0.1:8420); /mcp is added. */
  baseUrl?: string;
  /** The agent whose memory the tools use (may be left out with a key bound to an agent). */
  agentId?: string;
  /** The user the agent acts for: episodes, preferences, facts and the user context need one. */
  userId?: string;
  /** loci's API key (default: $LOCI_API_KEY); leave unset while authentication is off. */
  apiKey?: string;
  /**
   * Which tools loci lists: "default", the compact set (remember, recall and
   * add, search, update and delete over memories), or "all", every kind's own
   * tools (loci's X-Loci-Tools header). Unset: the server's default.
   */
  tools?: "default" | "all";
}

/** The transport of the AI SDK's MCP client for loci: `{ type: "http", url, headers }`. */
export function lociMCPTransport(options: LociMCPOptions = {}): { type: "http"; url: string; headers: Record<string, string> } {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env ?? {};
  const base = (options.baseUrl ?? env.LOCI_URL ?? "http://127.0.0.1:8420").replace(/\/+$/, "");
  if (!/^https?:\/\//.test(base)) throw new TypeError(`baseUrl must start with http:// or https://, got ${JSON.stringify(base)}`);
  const headers: Record<string, string> = {};
  if (options.agentId !== undefined) headers["X-Loci-Agent"] = options.agentId;
  if (options.userId !== undefined) headers["X-Loci-User"] = options.userId;
  const apiKey = options.apiKey ?? (env.LOCI_API_KEY || undefined);
  if (apiKey) headers["Authorization"] = `Bearer ${apiKey}`;
  if (options.tools !== undefined) headers["X-Loci-Tools"] = options.tools;
  return { type: "http", url: base + "/mcp", headers };
}

/**
 * An MCP client of the AI SDK connected to loci; `tools()` answers loci's
 * tools for generateText and streamText. Rejects with the AI SDK's
 * MCPClientError when loci refuses the connection (no agent named: 400; a
 * missing or wrong key: 401; a key bound to another agent: 403).
 */
export function createLociMCPClient(options: LociMCPOptions = {}): Promise<MCPClient> {
  return createMCPClient({ transport: lociMCPTransport(options), name: "loci-ai-sdk" });
}
