import assert from "node:assert/strict";
import { test } from "node:test";
import { parseImageReference, registryScheme } from "./reference.js";

test("references read as go-containerregistry reads them (Docker Hub defaults, tag latest)", () => {
  const cases: [string, string, string, string, string | undefined][] = [
    ["nginx", "index.docker.io", "library/nginx", "latest", "latest"],
    ["docker.io/nginx:1.25", "index.docker.io", "library/nginx", "1.25", "1.25"],
    ["bitnami/redis:7", "index.docker.io", "bitnami/redis", "7", "7"],
    ["ghcr.io/org/app:v1", "ghcr.io", "org/app", "v1", "v1"],
    ["localhost:5000/app", "localhost:5000", "app", "latest", "latest"],
    [`ghcr.io/org/app:v1@sha256:${"a".repeat(64)}`, "ghcr.io", "org/app", `sha256:${"a".repeat(64)}`, undefined],
  ];
  for (const [image, registry, repository, identifier, tag] of cases) {
    const r = parseImageReference(image);
    assert.ok(r.ok, image);
    assert.deepEqual(
      [r.value.registry, r.value.repository, r.value.identifier, r.value.tag],
      [registry, repository, identifier, tag],
      image,
    );
    assert.equal(r.value.name, `${registry}/${repository}`);
  }
});

test("a malformed reference is Kyverno's parse error", () => {
  for (const bad of ["", "UPPER/case", "app@sha256:short", "app:bad tag", " nginx"]) {
    const r = parseImageReference(bad);
    assert.ok(!r.ok, bad);
    assert.match(r.error.message, /^could not parse reference: /);
  }
});

test("plain HTTP only for loopback and private registries", () => {
  assert.equal(registryScheme("127.0.0.1:5000"), "http");
  assert.equal(registryScheme("localhost:5000"), "http");
  assert.equal(registryScheme("10.1.2.3"), "http");
  assert.equal(registryScheme("ghcr.io"), "https");
  assert.equal(registryScheme("index.docker.io"), "https");
});
