import assert from "node:assert/strict";
import { test } from "node:test";
import { Keychain } from "./keychain.js";

const b64 = (s: string): string => Buffer.from(s).toString("base64");

test("docker config entries are found by registry host; Docker Hub's spellings are one host", () => {
  const k = Keychain.fromDockerConfigs([
    {
      text: JSON.stringify({
        auths: {
          "https://index.docker.io/v1/": { auth: b64("hub:pw") },
          "ghcr.io": { username: "gh", password: "tok" },
        },
      }),
      source: "a",
    },
  ]);
  assert.ok(k.ok);
  assert.deepEqual(k.value.for("index.docker.io"), { username: "hub", password: "pw" });
  assert.deepEqual(k.value.for("docker.io"), { username: "hub", password: "pw" });
  assert.deepEqual(k.value.for("ghcr.io"), { username: "gh", password: "tok" });
  assert.equal(k.value.for("evil.example"), undefined, "no credentials for a host the config does not name");
});

test("the older .dockercfg form, and the first config wins for a host", () => {
  const k = Keychain.fromDockerConfigs([
    { text: JSON.stringify({ "quay.io": { auth: b64("first:1") } }), source: "a" },
    { text: JSON.stringify({ auths: { "quay.io": { auth: b64("second:2") } } }), source: "b" },
  ]);
  assert.ok(k.ok);
  assert.deepEqual(k.value.for("quay.io"), { username: "first", password: "1" });
});

test("a broken config is an error naming its source", () => {
  const k = Keychain.fromDockerConfigs([{ text: "{not json", source: "secret bylaw/pull" }]);
  assert.ok(!k.ok);
  assert.match(k.error.message, /^secret bylaw\/pull: not docker config JSON/);
  const auth = Keychain.fromDockerConfigs([
    { text: JSON.stringify({ auths: { "x.io": { auth: b64("nocolon") } } }), source: "s" },
  ]);
  assert.ok(!auth.ok);
  assert.match(auth.error.message, /the entry for x\.io: `auth` is not base64 of user:password/);
});
