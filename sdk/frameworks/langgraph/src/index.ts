/**
 * @loci-memory/langgraph: loci as LangGraph.js's memory.
 *
 *     import { LociCheckpointSaver } from "@loci-memory/langgraph";
 *     const graph = builder.compile({ checkpointer: new LociCheckpointSaver() });
 *     await graph.invoke(input, { configurable: { thread_id: "t1" } });
 *
 *     import { LociStore } from "@loci-memory/langgraph";
 *     const graph = builder.compile({ store: new LociStore() }); // config.store in nodes
 */

export { LociCheckpointSaver, type LociCheckpointSaverOptions } from "./checkpointer.js";
export { LociStore, MAX_NAMESPACE_DEPTH, type LociStoreOptions, type LociPutOperation } from "./store.js";
