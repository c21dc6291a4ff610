import { test } from "node:test";
import assert from "node:assert/strict";
import { serviceAccountUsers } from "./service-account-flags.js";

test("Kyverno's form is taken as written; a bare name is in Bylaw's namespace; neither flag keeps the defaults", () => {
  assert.deepEqual(
    serviceAccountUsers(
      {
        "reports-service-account-name": "system:serviceaccount:kyverno:kyverno-reports-controller",
        "background-service-account-name": "bg",
      },
      "bylaw",
    ),
    {
      ok: true,
      value: {
        reports: "system:serviceaccount:kyverno:kyverno-reports-controller",
        background: "system:serviceaccount:bylaw:bg",
      },
    },
  );
  assert.deepEqual(serviceAccountUsers({}, "bylaw"), { ok: true, value: {} });
});

test("a malformed value is refused naming the flag", () => {
  for (const bad of [
    "system:serviceaccount:ns",
    "system:serviceaccount:ns:a:b",
    "Not_A_Name",
    "system:serviceaccount::x",
  ]) {
    const r = serviceAccountUsers({ "reports-service-account-name": bad }, "bylaw");
    assert.ok(!r.ok && r.error.startsWith("--reports-service-account-name must be"), bad);
  }
  const r = serviceAccountUsers({ "background-service-account-name": "bg" }, undefined);
  assert.ok(!r.ok && r.error.startsWith("--background-service-account-name must be"));
});
