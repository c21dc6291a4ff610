/** The reports controller: background scans writing one PolicyReport per resource (start.ts). */
export { startReportsController } from "./start.js";
