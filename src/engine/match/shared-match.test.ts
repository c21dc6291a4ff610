import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { MatcherCache, MAX_SHARED } from "./shared-match.js";

describe("MatcherCache", () => {
  const pods = { any: [{ resources: { kinds: ["Pod"] } }] };
  test("rules whose match and exclude are written alike share one matcher; any difference gets its own", () => {
    const cache = new MatcherCache();
    const a = cache.get({ match: pods });
    assert.equal(cache.get({ match: { any: [{ resources: { kinds: ["Pod"] } }] } }), a);
    assert.notEqual(cache.get({ match: pods, exclude: { any: [{ resources: { namespaces: ["kube-system"] } }] } }), a);
    assert.notEqual(cache.get({ match: { any: [{ resources: { kinds: ["Pod"], names: ["web*"] } }] } }), a);
    assert.equal(cache.size, 3);
  });
  test("two caches share nothing: a block one holds is compiled anew by the other", () => {
    const one = new MatcherCache();
    const other = new MatcherCache();
    const a = one.get({ match: pods });
    assert.equal(other.size, 0);
    assert.notEqual(other.get({ match: pods }), a);
  });
  test("past MAX_SHARED blocks, new ones are compiled on their own and not kept", () => {
    const cache = new MatcherCache();
    for (let i = 0; i < MAX_SHARED; i++)
      cache.get({ match: { any: [{ resources: { kinds: ["Pod"], names: [`n${i}`] } }] } });
    const late = { match: { any: [{ resources: { kinds: ["Pod"], names: ["late"] } }] } };
    assert.notEqual(cache.get(late), cache.get(late));
    assert.equal(cache.size, MAX_SHARED);
  });
  test("the matcher names the literal kinds it can match, or none when a kind is a wildcard", () => {
    const cache = new MatcherCache();
    assert.deepEqual(cache.get({ match: { any: [{ resources: { kinds: ["Pod", "apps/v1/Deployment"] } }] } }).kinds, [
      "Pod",
      "Deployment",
    ]);
    assert.equal(cache.get({ match: { any: [{ resources: { kinds: ["*"] } }] } }).kinds, undefined);
  });
});
