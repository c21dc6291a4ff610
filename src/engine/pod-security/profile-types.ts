/**
 * A securityContext profile (`appArmorProfile`, `seccompProfile`) whose `type` must be one of an
 * allowed set, checked on the pod and on every container that sets one.
 */
import { forbidden, str } from "./check-types.js";
import { containers } from "./go-format.js";
import { obj, text, visitContainers } from "./read.js";
import type { PodView, PssFieldError } from "./types.js";

interface ProfileTypes {
  /** Who set a forbidden type: `pod`, then `containers "a", "b"`. */
  readonly setters: string[];
  /** The forbidden types, in the order they were found. */
  readonly badValues: string[];
  /** One forbidden-value error per setter field. */
  readonly errors: PssFieldError[];
  /** The pod sets the profile with an allowed type. */
  readonly podAllowed: boolean;
  /** The containers that do not set the profile at all, with the field they would set. */
  readonly unset: readonly { readonly name: string; readonly field: string }[];
}

export function profileTypes(
  pod: PodView,
  profile: "appArmorProfile" | "seccompProfile",
  allowed: (type: string) => boolean,
): ProfileTypes {
  const setters: string[] = [];
  const badValues: string[] = [];
  const errors: PssFieldError[] = [];
  let podAllowed = false;
  const podProfile = obj(obj(pod.spec, "securityContext"), profile);
  if (podProfile !== undefined) {
    const type = text(podProfile, "type") ?? "";
    if (allowed(type)) podAllowed = true;
    else {
      setters.push("pod");
      badValues.push(type);
      errors.push(forbidden(`spec.securityContext.${profile}.type`, str(type)));
    }
  }
  const bad: string[] = [];
  const unset: { name: string; field: string }[] = [];
  visitContainers(pod.spec, (c, path, name) => {
    const field = `${path}.securityContext.${profile}.type`;
    const set = obj(obj(c, "securityContext"), profile);
    if (set === undefined) {
      unset.push({ name, field });
      return;
    }
    const type = text(set, "type") ?? "";
    if (allowed(type)) return;
    bad.push(name);
    badValues.push(type);
    errors.push(forbidden(field, str(type)));
  });
  if (bad.length > 0) setters.push(containers(bad));
  return { setters, badValues, errors, podAllowed, unset };
}
