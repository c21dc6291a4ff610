export { renderTable } from "./table.js";
export { xmlEscape, xmlAttr } from "./xml.js";
export { renderHumanSummary, type HumanSummaryOptions } from "./human-summary.js";
export { renderJunit } from "./junit.js";
export { renderSarif, SARIF_SCHEMA, type SarifOptions } from "./sarif.js";
export { failedControls, pssControls, pssProfile } from "./pss-controls.js";
export { policyInfo } from "./policy-info.js";
export { displaySource } from "./source-path.js";
export {
  countResults,
  summaryLine,
  compareText,
  type Counts,
  type PolicyInfo,
  type ResourceOrigin,
  type ResultRow,
} from "./types.js";
