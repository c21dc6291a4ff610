import { test } from "node:test";
import assert from "node:assert/strict";
import { decodeInputs, encodeInputs } from "./share-link.js";

const inputs = {
  policies: "apiVersion: kyverno.io/v1\nkind: ClusterPolicy\nmetadata: {name: p}\n# ünïcödé and emoji 🚀\n",
  resources: "apiVersion: v1\nkind: Pod\nmetadata: {name: a}\n".repeat(200),
  values: "",
};

test("a link's fragment gives back the inputs exactly, with or without its #", () => {
  const fragment = encodeInputs(inputs);
  assert.match(fragment, /^v1\.[A-Za-z0-9_-]+$/, "only characters a URL fragment keeps as they are");
  assert.deepEqual(decodeInputs(fragment), { ok: true, inputs });
  assert.deepEqual(decodeInputs(`#${fragment}`), { ok: true, inputs });
});

test("the inputs are compressed: repetitive YAML takes a fraction of its length", () => {
  const length = inputs.policies.length + inputs.resources.length;
  assert.ok(encodeInputs(inputs).length < length / 10, `${encodeInputs(inputs).length} of ${length}`);
});

test("inputs of several megabytes survive (no call-stack limit on the encoding)", () => {
  const big = { ...inputs, resources: `data: ${"x".repeat(3_000_000)}\n` };
  assert.deepEqual(decodeInputs(encodeInputs(big)), { ok: true, inputs: big });
});

test("a fragment that is not a playground link, is cut short or is tampered with is an error saying so", () => {
  const fragment = encodeInputs(inputs);
  const cases: [string, RegExp][] = [
    ["", /holds no playground inputs/],
    ["#overview", /holds no playground inputs/],
    [fragment.slice(0, fragment.length / 2), /cannot be read \(cut short when copied\?\)/],
    ["v1.%3Cscript%3E", /cannot be read.*base64url/],
    [`v1.${Buffer.from("not deflate").toString("base64url")}`, /cannot be read/],
  ];
  for (const [given, want] of cases) {
    const got = decodeInputs(given);
    assert.equal(got.ok, false, given);
    if (!got.ok) assert.match(got.error, want, given);
  }
});

test("a fragment holding JSON of the wrong shape is an error, not inputs", async () => {
  const { deflateSync, strToU8 } = await import("fflate");
  const wrong = `v1.${Buffer.from(deflateSync(strToU8(JSON.stringify({ policies: 1 })))).toString("base64url")}`;
  assert.deepEqual(decodeInputs(wrong), {
    ok: false,
    error: "the link's inputs are not three texts (policies, resources, values)",
  });
});

test("a link that would unpack to more than 16 MiB is refused before it is unpacked whole", async () => {
  const { deflateSync, strToU8 } = await import("fflate");
  const bomb = `v1.${Buffer.from(deflateSync(strToU8(JSON.stringify(["x".repeat(40 * 1024 * 1024), "", ""])), { level: 9 })).toString("base64url")}`;
  assert.ok(bomb.length < 200_000, `the bomb is small: ${bomb.length}`);
  const got = decodeInputs(bomb);
  assert.equal(got.ok, false);
  if (!got.ok) assert.match(got.error, /unpacks to more than 16 MiB/);
});
