import { test } from "node:test";
import assert from "node:assert/strict";
import { groupUrl } from "./push-group.js";

test("the grouping key is the path; a value with a slash, or empty, goes base64url encoded", () => {
  const url = (grouping: Record<string, string>) =>
    groupUrl({ url: "http://pg:9091/", job: "kube-bench", grouping, timeoutMs: 1 }).toString();
  assert.equal(url({ instance: "node-1" }), "http://pg:9091/metrics/job/kube-bench/instance/node-1");
  assert.equal(url({ instance: "a/b" }), "http://pg:9091/metrics/job/kube-bench/instance@base64/YS9i");
  assert.equal(url({ instance: "" }), "http://pg:9091/metrics/job/kube-bench/instance@base64/=");
  assert.equal(url({ instance: "ip 10.0.0.1" }), "http://pg:9091/metrics/job/kube-bench/instance/ip%2010.0.0.1");
});
