/** Deterministic ports for tests: a fixed clock, a counter "random", and a table of context answers. */
import { createHash } from "node:crypto";
import { type ContextSources, type EnginePorts, err, type JsonValue, ok } from "../../src/engine/index.js";

export interface FakeContext {
  readonly configMaps?: Readonly<Record<string, JsonValue>>;
  readonly apiCalls?: Readonly<Record<string, JsonValue>>;
}

export function fakeContext(answers: FakeContext = {}): ContextSources {
  return {
    canLoad: (kind) =>
      kind === "configMap"
        ? answers.configMaps !== undefined
        : kind === "apiCall"
          ? answers.apiCalls !== undefined
          : false,
    configMap: (ns, name) => {
      const v = answers.configMaps?.[`${ns}/${name}`];
      return v === undefined ? err("not-found", `configmap ${ns}/${name} not found`) : ok(v);
    },
    apiCall: (req) => {
      const v = answers.apiCalls?.[req.urlPath ?? ""];
      return v === undefined ? err("api-call", `HTTP 404: ${req.urlPath}`) : ok(v);
    },
    globalReference: (name) => err("unavailable", `no global context ${name}`),
    imageData: (ref) => err("unavailable", `no image data for ${ref}`),
  };
}

export function fakePorts(answers: FakeContext = {}, nowMillis = Date.UTC(2026, 0, 15, 12, 0, 0)): EnginePorts {
  let n = 0;
  return {
    clock: { nowMillis: () => nowMillis },
    random: { next: () => (n++ * 0.618033988749895) % 1 },
    hasher: {
      sha256Hex: (s) => createHash("sha256").update(s).digest("hex"),
      sha1Hex: (s) => createHash("sha1").update(s).digest("hex"),
      md5Hex: (s) => createHash("md5").update(s).digest("hex"),
    },
    context: fakeContext(answers),
    hosts: { isExternalHost: () => ok(true) },
  };
}
