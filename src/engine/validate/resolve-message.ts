/** Substitute variables in a rule message, lazily (only when a message is shown). */
import { substituteString } from "../variables/index.js";
import { messageSubstitutionError } from "./messages.js";
import type { ValidateScope } from "./types.js";

export function resolveMessage(
  message: string | undefined,
  scope: ValidateScope,
): { ok: true; text: string } | { ok: false; message: string } {
  if (message === undefined || message === "") return { ok: true, text: "" };
  if (!message.includes("{{")) return { ok: true, text: message };
  const r = substituteString(message, scope.vars);
  if (!r.ok) return { ok: false, message: messageSubstitutionError(scope.ruleName, r.error.message) };
  return { ok: true, text: typeof r.value === "string" ? r.value : JSON.stringify(r.value) };
}
