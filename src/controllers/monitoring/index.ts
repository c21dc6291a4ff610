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
export { compileResultFilter, FILTER_FIELDS, SEVERITY_ORDER, type FilterField } from "./result-filter.js";
