/** One policy problem as text: `field: message`, or the message alone when it has no field. */
import type { PolicyProblem } from "../../engine/index.js";

export function problemText(p: PolicyProblem): string {
  return p.path === "" ? p.message : `${p.path}: ${p.message}`;
}
