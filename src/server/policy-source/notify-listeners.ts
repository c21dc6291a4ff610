/** Telling a policy source's listeners of an event: one listener that throws is logged and never stops the others. */
import type { PolicySourceEvent } from "../types.js";
import type { LogFn } from "./types.js";

export function notifyListeners(
  listeners: ReadonlySet<(event: PolicySourceEvent) => void>,
  event: PolicySourceEvent,
  log: LogFn,
): void {
  for (const listener of [...listeners]) {
    try {
      listener(event);
    } catch (e) {
      log("error", "a policy source listener threw", { error: e instanceof Error ? e.message : String(e) });
    }
  }
}
