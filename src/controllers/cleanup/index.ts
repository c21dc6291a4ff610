export { startCleanupController, type CleanupController, type CleanupControllerOptions } from "./start.js";
export type { CleanupCounters } from "./types.js";
