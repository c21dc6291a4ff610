import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { JmesPathError } from "../../types.js";
import { call, fakeContext } from "../../../../../test/support/fake-function-context.js";
import { networkFunctions, urlHostname } from "./network.js";

const ctx = fakeContext({ hosts: { "example.com": true, "kubernetes.default.svc": false } });

describe("is_external_url", () => {
  const cases: ReadonlyArray<readonly [string, boolean]> = [
    ["https://example.com/path", true],
    ["http://kubernetes.default.svc:443/api", false],
    ["http://10.0.0.1:8080/x", false],
    ["http://172.16.5.4", false],
    ["http://172.32.0.1", true],
    ["http://192.168.1.1", false],
    ["http://127.0.0.1", false],
    ["https://8.8.8.8", true],
    ["http://169.254.169.254/latest/meta-data", true], // link-local is neither loopback nor private in Go
    ["http://[::1]:80/", false],
    ["http://[fd00::1]/", false],
    ["http://[2001:db8::1]/", true],
    ["http://[::ffff:10.0.0.1]/", false],
    ["http://user:pw@10.0.0.1/", false],
  ];
  for (const [url, want] of cases) {
    test(`${url} -> ${want}`, () => assert.equal(call(networkFunctions, "is_external_url", [url], ctx), want));
  }

  test("a host name that does not resolve is an error", () => {
    assert.throws(
      () => call(networkFunctions, "is_external_url", ["https://nowhere.invalid"], ctx),
      (e: unknown) => e instanceof JmesPathError && e.message === "lookup nowhere.invalid: no such host",
    );
  });

  test("URL host extraction follows Go's url.Parse", () => {
    assert.equal(urlHostname("https://Example.com:8443/x?y#z"), "Example.com");
    assert.equal(urlHostname("example.com/path"), "");
    assert.deepEqual(urlHostname("http://[::1"), { error: `parse "http://[::1": missing ']' in host` });
    assert.deepEqual(urlHostname("http://host:abc/"), {
      error: `parse "http://host:abc/": invalid port ":abc" after host`,
    });
  });
});
