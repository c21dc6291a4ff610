import type { Anchor, AnchorKind } from "./types.js";

const MODIFIER_TO_KIND: Readonly<Record<string, AnchorKind>> = {
  "": "condition",
  "<": "global",
  X: "negation",
  "+": "addIfNotPresent",
  "=": "equality",
  "^": "existence",
};

const KIND_TO_MODIFIER: Readonly<Record<AnchorKind, string>> = {
  condition: "",
  global: "<",
  negation: "X",
  addIfNotPresent: "+",
  equality: "=",
  existence: "^",
};

/**
 * Kyverno's anchor grammar: `^([+<=X^])?\((.+)\)$` after trimming surrounding whitespace.
 * As in Go, `.` does not match a newline, so a key holding a newline is not an anchor.
 */
const ANCHOR_RE = /^([+<=X^])?\(([^\n]+)\)$/;

/** Parses a pattern key as an anchor; `undefined` when the key is a plain key. */
export function parseAnchor(key: string): Anchor | undefined {
  const m = ANCHOR_RE.exec(key.trim());
  if (m === null) return undefined;
  const inner = m[2];
  const kind = MODIFIER_TO_KIND[m[1] ?? ""];
  if (inner === undefined || inner === "" || kind === undefined) return undefined;
  return { kind, key: inner };
}

/** Writes an anchor back as a key, e.g. `anchorToString("equality", "env")` is `=(env)`. */
export function anchorToString(kind: AnchorKind, key: string): string {
  if (key === "") return "";
  return `${KIND_TO_MODIFIER[kind]}(${key})`;
}

/** Removes the anchor from a key: `=(env)` gives `{ key: "env", prefix: "=(" }`; plain keys pass through. */
export function removeAnchor(key: string): { key: string; prefix: string } {
  const a = parseAnchor(key);
  if (a === undefined) return { key, prefix: "" };
  return { key: a.key, prefix: `${KIND_TO_MODIFIER[a.kind]}(` };
}

/** Removes every anchor from a `/`-separated path, keeping a leading `/`; empty segments are dropped. */
export function removeAnchorsFromPath(path: string): string {
  const parts = path.split("/").filter((p) => p !== "" && p !== ".");
  const joined = parts.map((p) => removeAnchor(p).key).join("/");
  return path.startsWith("/") ? `/${joined}` : joined;
}

export function isGlobalAnchor(a: Anchor | undefined): boolean {
  return a?.kind === "global";
}
/** True for `(key)` and `<(key)`: the anchors whose mismatch skips instead of failing. */
export function containsCondition(a: Anchor | undefined): boolean {
  return a?.kind === "condition" || a?.kind === "global";
}
export function isNegationAnchor(a: Anchor | undefined): boolean {
  return a?.kind === "negation";
}
export function isEqualityAnchor(a: Anchor | undefined): boolean {
  return a?.kind === "equality";
}
export function isExistenceAnchor(a: Anchor | undefined): boolean {
  return a?.kind === "existence";
}
export function isAddIfNotPresentAnchor(a: Anchor | undefined): boolean {
  return a?.kind === "addIfNotPresent";
}
