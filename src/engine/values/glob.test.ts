import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { compileGlob } from "./glob.js";

function matches(pattern: string, value: string): boolean {
  const g = compileGlob(pattern);
  assert.ok(g.ok, `${pattern}: ${g.ok ? "" : g.error.message}`);
  return g.value.match(value);
}

describe("compileGlob (gobwas/glob without separators, as matchImageReferences reads it)", () => {
  const cases: ReadonlyArray<readonly [string, string, boolean]> = [
    ["ghcr.io/acme/*", "ghcr.io/acme/app:1.0", true],
    ["ghcr.io/acme/*", "ghcr.io/acme/team/app:1.0", true],
    ["ghcr.io/acme/*", "docker.io/acme/app", false],
    ["**", "", true],
    ["a**b", "a/x/y/b", true],
    ["?at", "cat", true],
    ["?at", "at", false],
    ["?é", "aé", true],
    ["nginx", "Nginx", false],
    ["nginx.*", "nginxa", false],
    ["[abc]at", "bat", true],
    ["[abc]at", "rat", false],
    ["[!abc]at", "rat", true],
    ["[!abc]at", "cat", false],
    ["v[0-9].*", "v1.2", true],
    ["v[0-9].*", "vx.2", false],
    ["v[!0-9]*", "vx", true],
    ["v[!0-9]*", "v1", false],
    ["{docker.io,ghcr.io}/acme/*", "ghcr.io/acme/app", true],
    ["{docker.io,ghcr.io}/acme/*", "quay.io/acme/app", false],
    ["*:{v1.*,latest}", "app:latest", true],
    ["*:{v1.*,latest}", "app:v1.4", true],
    ["*:{v1.*,latest}", "app:v2.0", false],
    ["x{a,{b,c}d}", "xcd", true],
    ["x{a,{b,c}d}", "xc", false],
    ["x{a,}", "x", true],
    ["x{a,b", "xb", true],
    ["a,b}", "a,b}", true],
    ["a]", "a]", true],
    ["\\*", "*", true],
    ["\\*", "a", false],
    ["a\\", "a", true],
    ["[\\]]", "]", true],
    ["a.b", "aXb", false],
    ["(a|b)+", "(a|b)+", true],
    ["(a|b)+", "a", false],
  ];
  for (const [pattern, value, want] of cases)
    test(`${JSON.stringify(pattern)} ${want ? "matches" : "does not match"} ${JSON.stringify(value)}`, () => {
      assert.equal(matches(pattern, value), want);
    });

  test("a malformed class does not compile, with the library's reason", () => {
    const reason = (p: string): string => {
      const g = compileGlob(p);
      assert.ok(!g.ok, p);
      return g.error.message;
    };
    assert.equal(reason("ghcr.io/[abc"), "unexpected end of input");
    assert.equal(reason("a[]"), "could not parse range");
    assert.equal(reason("a[!]"), "could not parse range");
    assert.equal(reason("a[a-zz]"), "expected close range character");
    assert.equal(reason("a[z-a]"), "hi character 'a' should be greater than lo 'z'");
    assert.equal(reason("a[a-"), "unexpected end of input");
  });

  test("a hostile pattern matches in linear time (RE2)", () => {
    const g = compileGlob("*a*a*a*a*a*a*a*a*a*a*a*a*b");
    assert.ok(g.ok);
    assert.equal(g.value.match("a".repeat(5000)), false);
  });
});
