/** Events (events.k8s.io/v1) as Kyverno's components write them: the builders and the one bounded emitter. */
export { eventObject, objectRef, type KubeEvent, type ObjectRef } from "./event-object.js";
export { EventsEmitter } from "./emitter.js";
export { EventSeries } from "./event-series.js";
export {
  backgroundAppliedEvents,
  EVENT_REASONS,
  policyResultEvents,
  scanResultEvents,
  type EventOrigin,
} from "./policy-events.js";
export { eventComponents, type EventComponents } from "./components.js";
