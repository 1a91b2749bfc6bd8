// Compile-time checks of the client's types (`npm run typecheck`): answers
// and options are typed from the OpenAPI document, and wrong ones do not
// compile. Never run.

import { Client, NotFound, ServerError, StorageFull, type Answer, type Schemas } from "@loci-memory/client";

declare const c: Client;

export async function checks(): Promise<void> {
  const note = await c.recall("writer", "tone");
  const key: string = note.key;
  const updated: string = note.updated_at;
  // @ts-expect-error a note has no such field
  void note.nope;

  const block = await c.setBlock("writer", "personality", "x", { expected_version: 1 });
  const version: number = block.version;
  // @ts-expect-error expected_version is a number
  await c.setBlock("writer", "personality", "x", { expected_version: "1" });
  // @ts-expect-error options are spelt as on the wire
  await c.setBlock("writer", "personality", "x", { expectedVersion: 1 });

  // Categories are open: any name (the server checks its pattern).
  await c.storeFact("food", "Allergic to peanuts");
  // @ts-expect-error a category is a string
  await c.storeFact(7, "x");

  // Memories: options and answers typed from the document.
  const added = await c.addMemory("Likes tea", { user_id: "u1", metadata: { source: "chat", n: 2, tags: ["a"] }, ttl_seconds: 60 });
  const event: "ADD" | "UPDATE" | "NOOP" | "DELETE" = added.event;
  // Metadata values are any JSON.
  await c.addMemory("x", { metadata: { topicName: "food", nested: { a: [1, null] } } });
  // @ts-expect-error metadata is an object
  await c.addMemory("x", { metadata: [1] });
  // @ts-expect-error only facts, passages and notes are added this way
  await c.addMemory("x", { kind: "episode" });
  await c.updateMemory(added.id, { metadata: null });
  // @ts-expect-error a patch has no id (batch updates do)
  await c.updateMemory(added.id, { id: "x" });
  const batch = await c.batchMemories({ add: [{ content: "a" }], update: [{ id: added.id, tags: ["t"] }], delete: ["x"] });
  const firstEvent: string | undefined = batch.results[0]?.event;
  const history = await c.memoryHistory(added.id);
  const current: boolean | undefined = history.versions[0]?.current;
  const filtered = await c.user("u1").listMemories({ filters: { "metadata.n": { gte: 2 } } });
  const meta: Schemas["Metadata"] | undefined = filtered.memories[0]?.metadata;
  await c.search("tea", { filters: { or: [{ kind: "fact" }, { tags: { contains: "a" } }] } });
  void [event, firstEvent, current, meta];
  // @ts-expect-error not an outcome
  await c.user("u1").recordEpisode("planner", "t", "d", "maybe");

  const found = await c.search("budget", { kinds: ["fact"], explain: true });
  const kind: Schemas["Kind"] | undefined = found.results[0]?.kind;
  const prompt: string = await c.prompt("writer");
  const scoped: Answer<"recall"> = await c.agent("writer").recall("tone");
  const tier: Schemas["Tier"] = (await c.user("u1").observePreference("vertical", "Retail", "explicit")).tier;

  const berlin = await c.storeFact("general_fact", "Lives in Berlin", { user_id: "u1", key: "home_city", valid_at: "2024-01-01T00:00:00Z" });
  const status: Schemas["FactStatus"] = berlin.status;
  const supersedes: string | undefined = berlin.supersedes;
  // @ts-expect-error keep is a boolean
  await c.resolveFact(berlin.id, "yes");
  // @ts-expect-error status filters disputed facts only
  await c.listFacts({ status: "current" });
  const queue = await c.user("u1").reviewQueue();
  const reason: string | undefined = queue.items[0]?.reason;
  const kept: boolean = (await c.resolvePreference("u1", "tone", false)).kept;
  const timeline = await c.listMemories({ kind: ["fact", "note"], before: "2024-01-01T00:00:00Z" });
  const firstKind: Schemas["Kind"] | undefined = timeline.memories[0]?.kind;
  // @ts-expect-error kind is a list of kinds
  await c.listMemories({ kind: "fact" });
  const role: Schemas["Role"] = (await c.whoami()).role;
  const pending: number = (await c.agent("writer").stats({ days: 7 })).embeddings.pending;
  const versions: number = (await c.agent("writer").blockHistory("persona")).versions.length;

  try {
    await c.recall("writer", "nothing");
  } catch (err) {
    if (err instanceof NotFound) {
      const status: number | undefined = err.status;
      void status;
    }
    if (err instanceof StorageFull) {
      const server: ServerError = err;
      void server;
    }
  }
  void [key, updated, version, kind, prompt, scoped, tier, status, supersedes, reason, kept, firstKind, role, pending, versions];
}
