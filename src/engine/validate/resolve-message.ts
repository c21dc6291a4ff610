/**
 * Substitute variables in a rule message, lazily (only when a message is shown). When they cannot be
 * substituted, `message` is Kyverno's text with `detail` (what went wrong) in it; a pattern mismatch
 * passes its own error as the detail, as Kyverno's buildErrorMessage does.
 */
import { substituteString } from "../variables/index.js";
import { messageSubstitutionError } from "./messages.js";
import type { ValidateScope } from "./types.js";

export function resolveMessage(
  message: string | undefined,
  scope: ValidateScope,
  detail?: string,
): { ok: true; text: string } | { ok: false; message: string } {
  if (message === undefined || message === "") return { ok: true, text: "" };
  if (!message.includes("{{")) return { ok: true, text: message };
  const r = substituteString(message, scope.vars);
  if (!r.ok) return { ok: false, message: messageSubstitutionError(scope.ruleName, detail ?? r.error.message) };
  return { ok: true, text: typeof r.value === "string" ? r.value : JSON.stringify(r.value) };
}
