/** Which of an ImageValidatingPolicy's bodies (its own, or an autogen copy for pod controllers) a request meets. */
import type { PreparedRequest } from "../../pipeline/prepared-request.js";
import type { CompiledPolicy } from "../../policy/compiled-policy.js";
import type { CompiledImageValidatingBody } from "./body.js";

type Verdict = ReturnType<CompiledImageValidatingBody["constraints"]["decide"]>;

/**
 * The body whose matchConstraints decide the request: the policy's own, else the first autogen
 * copy for pod controllers that matches (or cannot decide); undefined when none matches.
 */
export function bodyFor(
  policy: CompiledPolicy & { language: "image-validating" },
  request: PreparedRequest,
): { body: CompiledImageValidatingBody; verdict: Verdict } | undefined {
  const req = request.matchContext(policy).req;
  for (const body of [policy.imageValidating, ...policy.imageValidating.autogen]) {
    const verdict = body.constraints.decide(req);
    if (verdict.kind !== "no-match") return { body, verdict };
  }
  return undefined;
}
