import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { tempTree } from "../../../test/support/temp-dir.js";
import { readCatalog, selectSets } from "./catalog.js";
import { packageRoot } from "./sets-dir.js";

const FIXTURES = join(packageRoot(), "test", "fixtures", "policy-sets");
const set = (name: string, policies = "[p.yaml]") =>
  `apiVersion: bylaw.dev/v1alpha1\nkind: PolicySet\nmetadata: {name: ${name}}\ndescription: the ${name} set\npolicies: ${policies}\n`;

describe("readCatalog", () => {
  test("lists the folders that hold a set.yaml, sorted by name", async () => {
    const catalog = await readCatalog(FIXTURES);
    assert.deepEqual(
      catalog.sets.map((s) => s.name),
      ["demo-basics", "demo-strict"],
    );
    assert.deepEqual(catalog.problems, []);
    assert.equal(catalog.sets[0]?.file, join(FIXTURES, "demo-basics", "set.yaml"));
  });

  test("a broken set is reported and the others still list; a second set of the same name is ignored", async () => {
    const dir = tempTree({
      "a/set.yaml": set("alpha"),
      "b/set.yaml": "kind: [",
      "c/set.yaml": set("alpha"),
      "d/set.yaml": set("delta"),
    });
    const catalog = await readCatalog(dir);
    assert.deepEqual(
      catalog.sets.map((s) => s.name),
      ["alpha", "delta"],
    );
    assert.equal(catalog.problems.length, 2);
    assert.match(catalog.problems[0] ?? "", /b\/set\.yaml/);
    assert.match(catalog.problems[1] ?? "", /c\/set\.yaml: policy set alpha is already defined in .*a\/set\.yaml/);
  });

  test("a missing folder is a problem that names the environment variable", async () => {
    const catalog = await readCatalog("/nonexistent/bylaw-sets");
    assert.deepEqual(catalog.sets, []);
    assert.match(
      catalog.problems[0] ?? "",
      /no policy sets folder at \/nonexistent\/bylaw-sets \(set BYLAW_POLICY_SETS_DIR/,
    );
  });
});

describe("selectSets", () => {
  test("picks the named sets in the order given, each once", async () => {
    const selected = selectSets(await readCatalog(FIXTURES), ["demo-strict", "demo-basics", "demo-strict"]);
    assert.ok(selected.ok);
    assert.deepEqual(
      selected.sets.map((s) => s.name),
      ["demo-strict", "demo-basics"],
    );
  });

  test("an unknown name is an error that lists the sets there are", async () => {
    const catalog = await readCatalog(FIXTURES);
    assert.deepEqual(selectSets(catalog, ["pss-strict"]), {
      ok: false,
      error: 'unknown policy set "pss-strict"; available sets: demo-basics, demo-strict (see `bylaw policy-sets`)',
    });
    const two = selectSets(catalog, ["x", "demo-basics", "y"]);
    assert.ok(!two.ok && two.error.startsWith('unknown policy sets "x", "y";'));
  });

  test("with no sets at all, the error says where it looked", async () => {
    const selected = selectSets(await readCatalog(tempTree({ "empty/readme.txt": "" })), ["x"]);
    assert.ok(!selected.ok && /no policy sets found in \//.test(selected.error));
  });
});
