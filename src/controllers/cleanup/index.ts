export { startCleanupController } from "./start.js";
