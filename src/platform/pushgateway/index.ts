/** Pushing metrics to a Prometheus Pushgateway. */
export { replaceGroup } from "./push-group.js";
