import { test } from "node:test";
import assert from "node:assert/strict";
import { denialKeys, missingDefaultServiceAccount, tallyDenials } from "./denials.js";

const status = (message: string, code = 400): string =>
  JSON.stringify({ kind: "Status", apiVersion: "v1", status: "Failure", message, code });
const kyvernoDenial =
  'admission webhook "validate.kyverno.svc-fail" denied the request: \n\nresource Pod/lat/p-1 was blocked due to the following policies \n\nrequire-pod-probes:\n  validate-probes: Liveness, readiness, or startup probes are required\nrestrict-node-selection:\n  restrict-nodename: "Setting the nodeName field is prohibited: x"\n';

test("a webhook denial names the webhook and each policy in Kyverno's list, not the rules", () => {
  assert.deepEqual(denialKeys(400, status(kyvernoDenial)), [
    "webhook validate.kyverno.svc-fail: policy require-pod-probes",
    "webhook validate.kyverno.svc-fail: policy restrict-node-selection",
  ]);
});

test("a refusal by the API server's own admission is named as such, with its reason", () => {
  const [key] = denialKeys(
    403,
    status('pods "p-1" is forbidden: pod rejected: RuntimeClass "prodclass" not found', 403),
  );
  assert.match(key ?? "", /^HTTP 403 from the API server: pods "…" is forbidden: pod rejected: RuntimeClass/);
  assert.deepEqual(
    denialKeys(403, status('pods "p-2" is forbidden: pod rejected: RuntimeClass "prodclass" not found', 403)),
    [key],
  );
});

test("a webhook denial without Kyverno's list keeps the webhook and the message head", () => {
  assert.deepEqual(
    denialKeys(400, status('admission webhook "mutate.kyverno.svc-fail" denied the request: failed to load context')),
    [
      'webhook mutate.kyverno.svc-fail: admission webhook "mutate.kyverno.svc-fail" denied the request: failed to load context',
    ],
  );
});

test("the tally counts only refused creates, most frequent first", () => {
  const denied = { status: 400, body: status(kyvernoDenial) };
  const runtime = { status: 403, body: status("pod rejected: RuntimeClass not found", 403) };
  const tally = tallyDenials([denied, { status: 201, body: "{}" }, denied, runtime]);
  assert.deepEqual(
    tally.map(([, n]) => n),
    [2, 2, 1],
  );
  assert.equal(tally[2]?.[0], "HTTP 403 from the API server: pod rejected: RuntimeClass not found");
});

test("a Pod refused for want of the namespace's default ServiceAccount is recognised in the API server's Status", () => {
  const body = status(
    'pods "m-87" is forbidden: error looking up service account mem-87/default: serviceaccount "default" not found',
    403,
  );
  assert.ok(body.includes('\\"default\\"'), "the Status JSON escapes the quotes");
  assert.equal(missingDefaultServiceAccount(403, body), true);
  assert.equal(
    missingDefaultServiceAccount(403, status('pods "m-1" is forbidden: pod rejected: RuntimeClass "x" not found', 403)),
    false,
  );
  assert.equal(missingDefaultServiceAccount(201, "{}"), false);
});
