export { startMonitoring } from "./start.js";
export { eventCondition } from "./event-lines.js";
export {
  REPORT_LABELS,
  SIMPLE_REPORT_LABELS,
  isReportLabel,
  type Family,
  type ReportLabel,
  type MonitoringLokiSettings,
} from "./types.js";
