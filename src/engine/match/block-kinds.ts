/** The kinds a match or exclude block names: its legacy `resources`, then each `any[]` and `all[]` filter's, as written. */
import type { MatchResources } from "../api/policy.js";

export function blockKinds(block: MatchResources | undefined): string[] {
  if (block === undefined) return [];
  return [
    ...(block.resources?.kinds ?? []),
    ...[...(block.any ?? []), ...(block.all ?? [])].flatMap((f) => f.resources?.kinds ?? []),
  ];
}
