/** The PolicyException flags, in Bylaw's and Kyverno's spellings. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { exceptionSettings, kyvernoExceptionFlags } from "./exception-flags.js";

describe("kyvernoExceptionFlags", () => {
  test("Kyverno's spellings become Bylaw's", () => {
    assert.deepEqual(
      kyvernoExceptionFlags([
        "--enablePolicyException",
        "--exceptionNamespace",
        "a",
        "--exceptionNamespace=b",
        "--port",
        "1",
      ]),
      ["--enable-policy-exception", "--exception-namespace", "a", "--exception-namespace=b", "--port", "1"],
    );
    assert.deepEqual(kyvernoExceptionFlags(["--enablePolicyException=true"]), ["--enable-policy-exception"]);
    assert.deepEqual(kyvernoExceptionFlags(["--enablePolicyException=false"]), []);
  });
});

describe("exceptionSettings", () => {
  test("from the cluster: off by default, with a warning when only namespaces are given", () => {
    const off = exceptionSettings({}, true);
    assert.ok(off.ok);
    assert.deepEqual(off.value.scope, { enabled: false });
    const nsOnly = exceptionSettings({ "exception-namespace": ["x"] }, true);
    assert.ok(nsOnly.ok);
    assert.deepEqual(nsOnly.value.scope, { enabled: false });
    assert.match(nsOnly.value.warning ?? "", /no effect without --enable-policy-exception/);
  });

  test("from the cluster: enabled needs the namespaces; '*' is every namespace", () => {
    const missing = exceptionSettings({ "enable-policy-exception": true }, true);
    assert.equal(missing.ok, false);
    const listed = exceptionSettings({ "enable-policy-exception": true, "exception-namespace": ["a", "b,c"] }, true);
    assert.ok(listed.ok);
    assert.deepEqual(listed.value.scope, { enabled: true, namespaces: ["a", "b", "c"] });
    assert.deepEqual(listed.value.namespaces, ["a", "b", "c"]);
    const all = exceptionSettings({ "enable-policy-exception": true, "exception-namespace": ["*"] }, true);
    assert.ok(all.ok);
    assert.deepEqual(all.value.scope, { enabled: true, namespaces: "all" });
    assert.equal(all.value.namespaces, undefined);
  });

  test("folder mode: exceptions in the folder apply, within --exception-namespace if given", () => {
    const any = exceptionSettings({}, false);
    assert.ok(any.ok);
    assert.equal(any.value.namespaces, undefined);
    const some = exceptionSettings({ "exception-namespace": ["a"] }, false);
    assert.ok(some.ok);
    assert.deepEqual(some.value.namespaces, ["a"]);
  });
});
