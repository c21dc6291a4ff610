/**
 * Kind selectors as written in `match.*.resources.kinds` (Kyverno `pkg/utils/kube/kind.go`
 * `ParseKindSelector`).
 *
 * The last `/`-segment may use `.` as the subresource separator (`Pod.status` = `Pod/status`).
 * A "version" is `v<digit>` optionally followed by `alpha<digit>` / `beta<digit>`, or `*`.
 */
import type { GroupVersionKind } from "../api/resource.js";
import { hasWildcard, wildcardMatch } from "../values/wildcard.js";
import type { KindSelector } from "./types.js";

const VERSION = /^(v\d((alpha|beta)\d)?|\*)$/;

/** Split a kind selector into group, version, kind and subresource. Unknown shapes give all "". */
export function parseKindSelector(input: string): KindSelector {
  const slashParts = input.split("/");
  const last = slashParts.pop() ?? "";
  const parts = [...slashParts, ...last.split(".")];
  const [a = "", b = "", c = "", d = ""] = parts;
  switch (parts.length) {
    case 1:
      return sel("*", "*", a, "");
    case 2:
      if (a === "*" && b === "*") return sel("*", "*", "*", "*");
      if (a === "*" && b.toLowerCase() === b) return sel("*", "*", "*", b);
      if (VERSION.test(a)) return sel("*", a, b, "");
      return sel("*", "*", a, b);
    case 3:
      if (VERSION.test(a)) return sel("*", a, b, c);
      return sel(a, b, c, "");
    case 4:
      return sel(a, b, c, d);
    default:
      return sel("", "", "", "");
  }
}

function sel(group: string, version: string, kind: string, subresource: string): KindSelector {
  return { group, version, kind, subresource };
}

const isPod = (gvk: GroupVersionKind): boolean => gvk.group === "" && gvk.version === "v1" && gvk.kind === "Pod";

/**
 * Whether one parsed selector selects the request's kind and subresource. A bare `Pod` selector
 * also selects the `pods/ephemeralcontainers` subresource (Kyverno's backward-compatibility rule).
 */
export function kindSelectorMatches(s: KindSelector, gvk: GroupVersionKind, subresource: string): boolean {
  if (
    !wildcardMatch(s.group, gvk.group) ||
    !wildcardMatch(s.version, gvk.version) ||
    !wildcardMatch(s.kind, gvk.kind)
  ) {
    return false;
  }
  if (wildcardMatch(s.subresource, subresource)) return true;
  return isPod(gvk) && subresource === "ephemeralcontainers";
}

/** A selector compiled into one predicate: literal parts compare by equality, only wildcards pay for matching. */
export function compileKindSelector(s: KindSelector): (gvk: GroupVersionKind, subresource: string) => boolean {
  const group = part(s.group);
  const version = part(s.version);
  const kind = part(s.kind);
  const sub = part(s.subresource);
  return (gvk, subresource) =>
    group(gvk.group) &&
    version(gvk.version) &&
    kind(gvk.kind) &&
    (sub(subresource) || (isPod(gvk) && subresource === "ephemeralcontainers"));
}

function part(pattern: string): (value: string) => boolean {
  if (pattern === "*") return () => true;
  if (!hasWildcard(pattern)) return (value) => value === pattern;
  return (value) => wildcardMatch(pattern, value);
}
