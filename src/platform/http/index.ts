/** Outbound HTTP: one exchange as Bylaw's clients make it, and reading an answer with a size cap. */
export { sendOutbound } from "./outbound-request.js";
export { readCapped, readCappedBytes, TOO_LARGE } from "./read-capped.js";
