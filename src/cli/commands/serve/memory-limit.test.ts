import { test, describe } from "node:test";
import assert from "node:assert/strict";
import {
  CGROUP_V1_MEMORY_LIMIT,
  CGROUP_V2_MEMORY_MAX,
  containerMemoryLimit,
  defaultInFlightBytes,
  parseByteSize,
} from "./memory-limit.js";
import { resourceBounds } from "./resource-flags.js";

const files =
  (map: Record<string, string>) =>
  (path: string): string | undefined =>
    map[path];
const MIB = 1024 * 1024;

describe("containerMemoryLimit", () => {
  test("cgroup v2 memory.max, else v1 memory.limit_in_bytes; 'max' and v1's unlimited are no limit", () => {
    assert.equal(containerMemoryLimit(files({ [CGROUP_V2_MEMORY_MAX]: "268435456\n" })), 256 * MIB);
    assert.equal(
      containerMemoryLimit(files({ [CGROUP_V2_MEMORY_MAX]: "max\n", [CGROUP_V1_MEMORY_LIMIT]: "1" })),
      undefined,
    );
    assert.equal(containerMemoryLimit(files({ [CGROUP_V1_MEMORY_LIMIT]: "536870912\n" })), 512 * MIB);
    assert.equal(containerMemoryLimit(files({ [CGROUP_V1_MEMORY_LIMIT]: "9223372036854771712\n" })), undefined);
    assert.equal(containerMemoryLimit(files({})), undefined);
  });
});

describe("sizes and defaults", () => {
  test("byte sizes take Kubernetes suffixes", () => {
    assert.equal(parseByteSize("256Mi"), 256 * MIB);
    assert.equal(parseByteSize("1Gi"), 1024 * MIB);
    assert.equal(parseByteSize("512M"), 512e6);
    assert.equal(parseByteSize("1000"), 1000);
    assert.equal(parseByteSize("lots"), undefined);
  });

  test("the in-flight budget is a tenth of the memory limit, at least one body; four bodies without a limit", () => {
    assert.equal(defaultInFlightBytes(256 * MIB, 7 * MIB), Math.floor(25.6 * MIB));
    assert.equal(defaultInFlightBytes(32 * MIB, 7 * MIB), 7 * MIB);
    assert.equal(defaultInFlightBytes(undefined, 7 * MIB), 28 * MIB);
  });

  test("the flags: the cgroup limit unless --memory-limit is given; bad values are usage errors naming the flag", async () => {
    const fromCgroup = await resourceBounds(
      { "max-connections": "1000", "metrics-max-namespaces": "200" },
      7 * MIB,
      () => 256 * MIB,
    );
    assert.ok(fromCgroup.ok);
    assert.equal(fromCgroup.value.memoryLimitBytes, 256 * MIB);
    assert.equal(fromCgroup.value.maxInFlightBytes, Math.floor(25.6 * MIB));
    assert.equal(fromCgroup.value.tlsPolicy.minVersion, "TLSv1.2");
    const given = await resourceBounds(
      { "max-connections": "10", "metrics-max-namespaces": "5", "memory-limit": "1Gi", "max-inflight-bytes": "8Mi" },
      7 * MIB,
      () => 256 * MIB,
    );
    assert.ok(given.ok);
    assert.deepEqual(
      [given.value.memoryLimitBytes, given.value.maxInFlightBytes, given.value.maxConnections],
      [1024 * MIB, 8 * MIB, 10],
    );
    const bad = await resourceBounds({ "max-connections": "-1", "metrics-max-namespaces": "5" }, 7 * MIB);
    assert.deepEqual(bad, { ok: false, error: '--max-connections must be a positive whole number (got "-1")' });
    const tls = await resourceBounds(
      { "max-connections": "1", "metrics-max-namespaces": "1", "tls-min-version": "1.1" },
      7 * MIB,
    );
    assert.equal(tls.ok, false);
    const ca = await resourceBounds(
      { "max-connections": "1", "metrics-max-namespaces": "1", "client-ca": "/nonexistent/ca.crt" },
      7 * MIB,
    );
    assert.match(ca.ok ? "" : ca.error, /^--client-ca \/nonexistent\/ca\.crt: /);
  });
});
