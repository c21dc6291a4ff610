/**
 * `bylaw fix test`: rewrite a kyverno-test.yaml's deprecated fields in place, as `kyverno fix test`
 * does: a missing apiVersion/kind is set (cli.kyverno.io/v1alpha1, Test); a top-level `name` moves to
 * `metadata.name`; a result's `resource` joins `resources`, `status` becomes `result`,
 * `patchedResource` becomes `patchedResources`; duplicate resources in a result are dropped.
 */
import { type Document, isMap, isSeq, type Pair } from "yaml";

export function fixTest(doc: Document): string[] {
  const top = doc.contents;
  if (!isMap(top)) return [];
  const out: string[] = [];
  // New top-level keys go first, in the usual order: apiVersion, kind, metadata.
  const head: Pair[] = [];
  if (!top.has("apiVersion")) {
    out.push("apiVersion is not set: setting cli.kyverno.io/v1alpha1");
    head.push(doc.createPair("apiVersion", "cli.kyverno.io/v1alpha1"));
  }
  if (!top.has("kind")) {
    out.push("kind is not set: setting Test");
    head.push(doc.createPair("kind", "Test"));
  }
  const name = top.get("name");
  if (name !== undefined) {
    out.push("name is deprecated: moved into metadata.name");
    if (!top.has("metadata")) head.push(doc.createPair("metadata", { name }));
    else if (!doc.hasIn(["metadata", "name"])) doc.setIn(["metadata", "name"], name);
    top.delete("name");
  }
  top.items.unshift(...head);
  if (doc.get("kind") !== "Test") return out;
  const results = doc.get("results");
  if (!isSeq(results)) return out;
  results.items.forEach((r, i) => {
    if (!isMap(r)) return;
    const resource = r.get("resource");
    if (typeof resource === "string") {
      out.push(`results[${i}] uses the deprecated resource field: moved into resources`);
      const list = r.get("resources");
      if (isSeq(list)) list.add(resource);
      else r.set("resources", doc.createNode([resource]));
      r.delete("resource");
    }
    const status = r.get("status");
    if (status !== undefined) {
      out.push(`results[${i}] uses the deprecated status field: now result`);
      if (!r.has("result")) r.set("result", status);
      r.delete("status");
    }
    if (r.has("patchedResource")) {
      out.push(`results[${i}].patchedResource was renamed: now patchedResources`);
      if (!r.has("patchedResources")) r.set("patchedResources", r.get("patchedResource", true));
      r.delete("patchedResource");
    }
    const resources = r.get("resources");
    if (isSeq(resources)) {
      const seen = new Set<unknown>();
      const before = resources.items.length;
      resources.items = resources.items.filter((x) => {
        const key = JSON.stringify(doc.createNode(x).toJSON());
        if (seen.has(key)) return false;
        seen.add(key);
        return true;
      });
      if (resources.items.length !== before) out.push(`results[${i}] lists a resource twice: duplicates dropped`);
    }
  });
  return out;
}
