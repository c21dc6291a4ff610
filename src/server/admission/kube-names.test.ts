/** Names written into webhook configurations stay valid for the API server, stable and unique (kube-names.ts). */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { dns1123Subdomain, qualifiedName } from "../../engine/index.js";
import { conditionName, distinctNames, hashedWebhookName, webhookName } from "./kube-names.js";

const long62 = `${"a".repeat(61)}z`;

describe("matchCondition names", () => {
  test("a name the API server accepts is kept as written", () => {
    assert.equal(conditionName("autogen-web", "o"), "autogen-web");
    assert.equal(conditionName(`autogen-${"x".repeat(55)}`, "o"), `autogen-${"x".repeat(55)}`, "63 characters fit");
    assert.equal(conditionName("example.com/autogen-web", "o"), "example.com/autogen-web");
  });

  test("a 62-character name behind `autogen-` is shortened to a valid qualified name of at most 63, stable for its origin", () => {
    const name = conditionName(`autogen-${long62}`, "pod/x");
    assert.deepEqual(qualifiedName(name), [], name);
    assert.ok(name.length <= 63);
    assert.match(name, /^autogen-a+-[0-9a-f]{12}$/);
    assert.equal(conditionName(`autogen-${long62}`, "pod/x"), name, "the same on every build");
  });

  test("names that read alike after the cut stay apart: the hash is of the whole origin", () => {
    const a = conditionName(`autogen-${long62}1`, "1");
    const b = conditionName(`autogen-${long62}2`, "2");
    assert.notEqual(a, b);
    assert.equal(a.slice(0, -13), b.slice(0, -13), "same head");
  });

  test("a prefix part that would be too long, or characters a name part refuses, still give a valid name", () => {
    for (const raw of [`${"p".repeat(250)}.io/autogen-x`, "autogen-a/b/c", "-_-"]) {
      const name = conditionName(raw, raw);
      assert.deepEqual(qualifiedName(name), [], `${raw} -> ${name}`);
    }
  });
});

describe("webhook names", () => {
  test("a valid DNS subdomain is kept; one past 253 is cut and hashed, valid and at most 253", () => {
    const fits = `vpol.validate.bylaw.svc-fail-finegrained-${long62}`;
    assert.equal(webhookName(fits, "k"), fits);
    const name = webhookName(`vpol.validate.bylaw.svc-fail-finegrained-${"n".repeat(63)}-${"m".repeat(250)}`, "n/m");
    assert.deepEqual(dns1123Subdomain(name), []);
    assert.ok(name.length <= 253);
  });
});

describe("distinct names", () => {
  test("every item of a clashing name is renamed (so the order of the list does not matter); the others are kept", () => {
    const items = [
      { name: "validate.bylaw.svc-fail-finegrained-a-b-c", key: "a-b/c" },
      { name: "validate.bylaw.svc-fail-finegrained-x", key: "x" },
      { name: "validate.bylaw.svc-fail-finegrained-a-b-c", key: "a/b-c" },
    ];
    const names = distinctNames(
      items,
      (i) => i.name,
      (i) => hashedWebhookName(i.name, i.key),
    );
    assert.equal(names[1], "validate.bylaw.svc-fail-finegrained-x");
    assert.notEqual(names[0], names[2]);
    assert.equal(new Set(names).size, 3);
    const reversed = distinctNames(
      [...items].reverse(),
      (i) => i.name,
      (i) => hashedWebhookName(i.name, i.key),
    );
    assert.deepEqual(reversed, [...names].reverse());
  });
});
