import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { sharedMatch } from "./shared-match.js";

describe("sharedMatch", () => {
  const pods = { any: [{ resources: { kinds: ["Pod"] } }] };
  test("rules whose match and exclude are written alike share one matcher; any difference gets its own", () => {
    const a = sharedMatch({ match: pods });
    assert.equal(sharedMatch({ match: { any: [{ resources: { kinds: ["Pod"] } }] } }), a);
    assert.notEqual(sharedMatch({ match: pods, exclude: { any: [{ resources: { namespaces: ["kube-system"] } }] } }), a);
    assert.notEqual(sharedMatch({ match: { any: [{ resources: { kinds: ["Pod"], names: ["web*"] } }] } }), a);
  });
  test("the matcher names the literal kinds it can match, or none when a kind is a wildcard", () => {
    assert.deepEqual(sharedMatch({ match: { any: [{ resources: { kinds: ["Pod", "apps/v1/Deployment"] } }] } }).kinds, ["Pod", "Deployment"]);
    assert.equal(sharedMatch({ match: { any: [{ resources: { kinds: ["*"] } }] } }).kinds, undefined);
  });
});
