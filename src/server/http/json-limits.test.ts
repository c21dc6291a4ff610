import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { DEFAULT_JSON_LIMITS, jsonOverLimits, scanJson, type JsonLimits } from "./json-limits.js";

const small: JsonLimits = { maxDepth: 3, maxEntries: 3, maxValues: 10 };

describe("jsonOverLimits", () => {
  test("a body within every limit passes, exactly at each limit too", () => {
    assert.equal(jsonOverLimits('{"a":[1,2,3],"b":{"c":{"d":null}}}', small), undefined);
    assert.equal(jsonOverLimits("[[[]]]", small), undefined);
    assert.equal(jsonOverLimits('{"a":1,"b":2,"c":3}', small), undefined);
    assert.equal(jsonOverLimits("[1,2,[3,4,5]]", small), undefined);
  });

  test("depth: one level more than the limit is refused, naming the flag", () => {
    assert.match(jsonOverLimits("[[[[]]]]", small) ?? "", /more than 3 levels deep \(--max-json-depth\)/);
    assert.match(jsonOverLimits('{"a":{"b":{"c":{}}}}', small) ?? "", /levels deep/);
    assert.match(jsonOverLimits("[".repeat(1_000_000), DEFAULT_JSON_LIMITS) ?? "", /1000 levels deep/);
  });

  test("entries: an array of more items or an object of more members than the limit is refused", () => {
    assert.match(jsonOverLimits("[1,2,3,4]", small) ?? "", /more than 3 entries \(--max-json-entries\)/);
    assert.match(jsonOverLimits('{"a":1,"b":2,"c":3,"d":4}', small) ?? "", /more than 3 entries/);
    assert.match(jsonOverLimits('[{},[],"x",{"y":[]}]', small) ?? "", /more than 3 entries/);
    // The members of an object count once each, key and value together; nested values count in their own container.
    assert.equal(jsonOverLimits('{"a":{"x":1,"y":2},"b":[1,2],"c":"3"}', { ...small, maxValues: 100 }), undefined);
  });

  test("values: every object, array, string, number and literal counts once; keys do not", () => {
    const limits: JsonLimits = { maxDepth: 10, maxEntries: 100, maxValues: 6 };
    assert.equal(jsonOverLimits('{"a":[true,false,null],"b":-1.5e3}', limits), undefined);
    assert.match(jsonOverLimits('{"a":[true,false,null],"b":-1.5e3,"c":""}', limits) ?? "", /more than 6 JSON values/);
  });

  test("brackets, commas and colons inside strings, escaped quotes included, are not counted", () => {
    const text = JSON.stringify({ s: '[[[[,,,,:{{{"\\"]]]', t: "\\", u: 'x\\"[[[[' });
    assert.equal(jsonOverLimits(text, small), undefined);
  });

  test("text that is not JSON is left to JSON.parse; an unterminated string ends the scan", () => {
    assert.equal(jsonOverLimits("]]]}}}", small), undefined);
    assert.equal(jsonOverLimits('["abc', small), undefined);
    assert.equal(jsonOverLimits("", small), undefined);
  });

  test("the defaults: a 180,000-container Pod is refused; a 100,000-container one and a review of two large ordinary objects are not", () => {
    const pod = (n: number): string =>
      JSON.stringify({ spec: { containers: Array.from({ length: n }, (_, i) => ({ name: `c${i}`, image: "i" })) } });
    assert.match(jsonOverLimits(pod(180_000)) ?? "", /more than 150000 entries/);
    assert.equal(jsonOverLimits(pod(100_000)), undefined);
    const data = Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`key-${i}`, "v".repeat(100)]));
    const review = { request: { object: { data }, oldObject: { data } } };
    assert.equal(jsonOverLimits(JSON.stringify(review)), undefined);
  });

  test("the defaults bound dense bodies: a million empty objects, however they are split", () => {
    const wide = `[${Array.from({ length: 25 }, () => `[${"{},".repeat(40_000)}{}]`).join(",")}]`;
    assert.match(jsonOverLimits(wide) ?? "", /more than 1000000 JSON values/);
  });

  test("a body within the limits comes with an estimate of its parsed size, which grows with objects far more than with text", () => {
    const objects = scanJson(`[${"{},".repeat(9_999)}{}]`);
    const text = scanJson(JSON.stringify("x".repeat(30_000)));
    assert.equal(objects.over, undefined);
    assert.ok(objects.parsedBytes >= 10_000 * 80, String(objects.parsedBytes));
    assert.ok(text.parsedBytes < 100, String(text.parsedBytes));
  });
});
