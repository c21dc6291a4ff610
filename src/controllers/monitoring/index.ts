export { startMonitoring } from "./start.js";
export { REPORT_LABELS, SIMPLE_REPORT_LABELS, isReportLabel, type Family, type ReportLabel } from "./types.js";
