/** The per-review record of network calls (review-calls.ts): once per review, a bounded number, found across async turns. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { ok } from "../engine/index.js";
import { CallScopes, MAX_CALLS_PER_REVIEW } from "./review-calls.js";

test("a call is recorded once, pending until settled, then answered from the record", async () => {
  const scopes = new CallScopes();
  const record = scopes.begin();
  let made = 0;
  const make = async () => (made++, ok("answer"));
  assert.equal(record.answer("k", "call k", make).ok, false);
  assert.equal(record.answer("k", "call k", make).ok, false);
  assert.equal(record.pending, 1, "the same call twice in a pass is one call");
  await record.settle(1000);
  assert.equal(record.pending, 0);
  assert.deepEqual(record.answer("k", "call k", make), { ok: true, value: "answer" });
  assert.equal(made, 1);
});

test("one review makes at most MAX_CALLS_PER_REVIEW calls; the next is refused, naming the limit", () => {
  const record = new CallScopes().begin();
  for (let i = 0; i < MAX_CALLS_PER_REVIEW; i++) record.answer(`k${i}`, "c", async () => ok(i));
  const over = record.answer("one-more", "call one-more", async () => ok(0));
  assert.equal(over.ok ? "" : over.error.kind, "refused");
  assert.match(over.ok ? "" : over.error.message, new RegExp(`at most ${MAX_CALLS_PER_REVIEW} network calls`));
});

test("the record is found inside `within`, also on a later turn of the event loop, and nowhere else", async () => {
  const scopes = new CallScopes();
  const record = scopes.begin();
  assert.equal(scopes.current(), undefined);
  const later = await record.within(() => new Promise((r) => setImmediate(() => r(scopes.current()))));
  assert.equal(later, record);
  assert.equal(scopes.current(), undefined);
});

test("a call that throws is an error naming it", async () => {
  const record = new CallScopes().begin();
  record.answer("k", "call k", async () => {
    throw new Error("socket hang up");
  });
  await record.settle(1000);
  const r = record.answer("k", "call k", async () => ok(1));
  assert.equal(r.ok ? "" : r.error.message, "call k: socket hang up");
});
