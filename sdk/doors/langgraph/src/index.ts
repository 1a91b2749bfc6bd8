/**
 * @loci-memory/langgraph: loci as LangGraph.js's memory.
 *
 *     import { LociCheckpointSaver } from "@loci-memory/langgraph";
 *     const graph = builder.compile({ checkpointer: new LociCheckpointSaver() });
 *     await graph.invoke(input, { configurable: { thread_id: "t1" } });
 */

export { LociCheckpointSaver, type LociCheckpointSaverOptions } from "./checkpointer.js";
