/**
 * Kyverno anchors: a pattern key wrapped in parentheses, with an optional one-character
 * modifier in front, e.g. `(name)`, `=(env)`, `X(hostPath)`, `^(containers)`, `<(labels)`, `+(key)`.
 */
export type AnchorKind =
  | "condition" // (key)
  | "global" // <(key)
  | "negation" // X(key)
  | "addIfNotPresent" // +(key)
  | "equality" // =(key)
  | "existence"; // ^(key)

export interface Anchor {
  readonly kind: AnchorKind;
  /** The key inside the parentheses, e.g. `name` for `=(name)`. Never empty. */
  readonly key: string;
}
