/** The `policies.kyverno.io/*` annotations that describe a policy to people. */
import { isObject } from "../../engine/index.js";
import type { PolicyInfo } from "./types.js";

const PREFIX = "policies.kyverno.io/";

/** Title, description, severity and category of a policy document (parsed or as written). */
export function policyInfo(doc: unknown): PolicyInfo {
  const metadata = isObject(doc) ? doc["metadata"] : undefined;
  const annotations = isObject(metadata) ? metadata["annotations"] : undefined;
  if (!isObject(annotations)) return {};
  const text = (key: string): string | undefined => {
    const v = annotations[PREFIX + key];
    return typeof v === "string" && v.trim() !== "" ? v.trim().replace(/\s+/g, " ") : undefined;
  };
  const out: { -readonly [K in keyof PolicyInfo]: PolicyInfo[K] } = {};
  for (const key of ["title", "description", "severity", "category"] as const) {
    const v = text(key);
    if (v !== undefined) out[key] = v;
  }
  return out;
}
