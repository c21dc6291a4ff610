import { test } from "node:test";
import assert from "node:assert/strict";
import { componentsFrom } from "./component-flags.js";

test("without --component the process is the admission controller", () => {
  assert.deepEqual(componentsFrom({ cluster: true }), { ok: true, value: ["admission"] });
  assert.deepEqual(componentsFrom({ policies: "dir" }), { ok: true, value: ["admission"] });
});

test("--component is repeatable, each component once", () => {
  assert.deepEqual(componentsFrom({ cluster: true, component: ["cleanup", "reports", "cleanup"] }), {
    ok: true,
    value: ["cleanup", "reports"],
  });
});

test("an unknown component is refused, naming them all", () => {
  const r = componentsFrom({ cluster: true, component: ["generate"] });
  assert.deepEqual(r, {
    ok: false,
    error: '--component must be admission, background, reports, cleanup, monitoring (got "generate")',
  });
});

test("a controller component needs policies from the cluster", () => {
  const r = componentsFrom({ policies: "dir", component: ["admission", "cleanup"] });
  assert.equal(r.ok, false);
  assert.match(r.ok ? "" : r.error, /^--component cleanup needs policies from the cluster/);
  const flag = componentsFrom({ policies: "dir", "cleanup-controller": true });
  assert.match(flag.ok ? "" : flag.error, /^--cleanup-controller needs policies from the cluster/);
  assert.equal(componentsFrom({ kubeconfig: "k", "reports-controller": true }).ok, true);
});

test("the admission controller's flags are refused by name in a process without it", () => {
  for (const [flags, name] of [
    [{ register: true }, "--register"],
    [{ "tls-secret": "bylaw-tls" }, "--tls-secret"],
    [{ "cleanup-controller": true }, "--cleanup-controller"],
  ] as const) {
    const r = componentsFrom({ cluster: true, component: ["background"], ...flags }, "bylaw");
    assert.match(r.ok ? "" : r.error, new RegExp(`^${name} is the admission controller's: add --component admission`));
  }
});

test("the background component needs Bylaw's namespace", () => {
  const r = componentsFrom({ cluster: true, component: ["background"] });
  assert.match(r.ok ? "" : r.error, /^--component background needs Bylaw's namespace/);
  assert.equal(componentsFrom({ cluster: true, component: ["background"] }, "bylaw").ok, true);
});
