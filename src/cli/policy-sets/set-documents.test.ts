import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { tempTree } from "../../../test/support/temp-dir.js";
import { readCatalog, selectSets } from "./catalog.js";
import { describeSetPolicies, loadSetDocuments } from "./set-documents.js";
import { packageRoot } from "./sets-dir.js";
import type { PolicySet } from "./types.js";

const FIXTURES = join(packageRoot(), "test", "fixtures", "policy-sets");

async function sets(...names: string[]): Promise<PolicySet[]> {
  const selected = selectSets(await readCatalog(FIXTURES), names);
  assert.ok(selected.ok);
  return selected.sets;
}

const names = (docs: Awaited<ReturnType<typeof loadSetDocuments>>) => describeSetPolicies(docs).map((p) => p.name);

describe("loadSetDocuments", () => {
  test("folders are read recursively, keeping only policy documents (not test suites or resources)", async () => {
    assert.deepEqual(names(await loadSetDocuments(await sets("demo-basics"))), ["require-team", "disallow-latest"]);
  });

  test("a file listed by two sets loads once", async () => {
    assert.deepEqual(names(await loadSetDocuments(await sets("demo-basics", "demo-strict"))), [
      "require-team",
      "disallow-latest",
      "no-privileged",
    ]);
  });

  test("a missing entry is an error document naming the set and the path", async () => {
    const dir = tempTree({
      "s/set.yaml": "apiVersion: bylaw.dev/v1alpha1\nkind: PolicySet\nmetadata: {name: s}\npolicies: [gone.yaml]\n",
    });
    const catalog = await readCatalog(dir);
    const docs = await loadSetDocuments(catalog.sets);
    assert.equal(docs.length, 1);
    assert.match(docs[0]?.error ?? "", /^policy set s: .*no such file or directory: .*gone\.yaml/);
  });
});

describe("describeSetPolicies", () => {
  test("title, severity and description from the annotations, and the failure action", async () => {
    const [team, latest] = describeSetPolicies(await loadSetDocuments(await sets("demo-basics")));
    assert.deepEqual(
      { ...team, source: undefined },
      {
        name: "require-team",
        kind: "ClusterPolicy",
        action: "Audit",
        source: undefined,
        title: "Require a team label",
        description: "Every Pod must say which team owns it, so that alerts reach someone. Add metadata.labels.team.",
        severity: "medium",
        category: "Best Practices",
      },
    );
    assert.equal(latest?.action, "Audit", "rule-level failureAction");
  });
});
