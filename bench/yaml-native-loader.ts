/**
 * For reference only: js-yaml's own loader, configured as close to Kubernetes as its options
 * allow (YAML 1.1 null/bool/int/float tags, merge keys, repeated keys allowed via `json: true`,
 * no timestamp tag so dates stay text). It still differs on edge cases (merge order, non-string
 * keys such as `1.0` or `y`, NaN), which is why Bylaw builds values itself (src/platform/yaml).
 */
import {
  boolYaml11Tag,
  floatYaml11Tag,
  intYaml11Tag,
  loadAll,
  mapTag,
  mergeTag,
  nullYaml11Tag,
  Schema,
  seqTag,
  strTag,
} from "js-yaml";

const KUBERNETES_LIKE = new Schema([
  strTag,
  seqTag,
  mapTag,
  nullYaml11Tag,
  boolYaml11Tag,
  intYaml11Tag,
  floatYaml11Tag,
  mergeTag,
]);

export function nativeJsYaml(text: string): unknown[] {
  return loadAll(text, { schema: KUBERNETES_LIKE, json: true, maxDepth: 1000 }).filter(
    (doc) => doc !== null && doc !== undefined,
  );
}
