/** The reports controller: background scans writing one PolicyReport per resource (start.ts), and admission results merged into them (admission-reports.ts). */
export { startReportsController } from "./start.js";
export { AdmissionReports } from "./admission-reports.js";
