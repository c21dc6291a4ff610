import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { JmesPathError } from "../../types.js";
import { call } from "../../../../../test/support/fake-function-context.js";
import { imageFunctions, normalizeImage } from "./image.js";

const DIGEST = `sha256:${"a".repeat(64)}`;

describe("image_normalize", () => {
  const cases: ReadonlyArray<readonly [string, string]> = [
    ["nginx", "docker.io/nginx:latest"],
    ["nginx:1.25", "docker.io/nginx:1.25"],
    ["library/nginx", "docker.io/library/nginx:latest"],
    ["ghcr.io/kyverno/kyverno:v1.19.0", "ghcr.io/kyverno/kyverno:v1.19.0"],
    ["localhost/app", "localhost/app:latest"],
    ["localhost:5000/app", "localhost:5000/app:latest"],
    ["registry.corp.org:443/team/app:1", "registry.corp.org:443/team/app:1"],
    [`nginx@${DIGEST}`, `docker.io/nginx@${DIGEST}`],
    [`nginx:1.25@${DIGEST}`, `docker.io/nginx@${DIGEST}`], // the digest wins
    ["MyRegistry/app", "MyRegistry/app:latest"], // an upper-case first part is a registry name
  ];
  for (const [image, want] of cases) {
    test(`${image} -> ${want}`, () => assert.equal(call(imageFunctions(), "image_normalize", [image]), want));
  }

  test("uses the configured default registry", () => {
    assert.equal(
      call(imageFunctions({ defaultRegistry: "harbor.corp.org" }), "image_normalize", ["nginx"]),
      "harbor.corp.org/nginx:latest",
    );
  });

  test("without default registry mutation the added registry is dropped", () => {
    assert.equal(normalizeImage("nginx", { enableDefaultRegistryMutation: false }), "nginx:latest");
    assert.equal(normalizeImage("ghcr.io/x/y", { enableDefaultRegistryMutation: false }), "ghcr.io/x/y:latest");
  });

  const errors: ReadonlyArray<readonly [string, string]> = [
    ["Nginx", "repository name must be lowercase"],
    ["nginx:", "invalid reference format"],
    ["", "invalid reference format"],
    ["nginx@sha256:abc", "invalid reference format"],
    [`nginx@sha256:${"a".repeat(40)}`, "invalid checksum digest length"],
    [`nginx@md5:${"a".repeat(32)}`, "unsupported digest algorithm"],
  ];
  for (const [image, reason] of errors) {
    test(`${JSON.stringify(image)} fails: ${reason}`, () => {
      assert.throws(
        () => call(imageFunctions(), "image_normalize", [image]),
        (e: unknown) =>
          e instanceof JmesPathError &&
          e.message.startsWith("JMESPath function 'image_normalize': bad image: ") &&
          e.message.endsWith(`defaultRegistry: docker.io, enableDefaultRegistryMutation: true: ${reason}`),
      );
    });
  }
});
