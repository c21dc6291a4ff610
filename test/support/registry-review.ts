/**
 * For admission tests that read an image registry (imageRegistry entries, CEL image.GetMetadata,
 * verifyImages): the validating handler's dependencies wired to the live image data port, its
 * registry client behind the egress filter, and the review-calls loop (ADR 0012, 0015).
 */
import assert from "node:assert/strict";
import type { JsonObject, JsonValue } from "../../src/engine/index.js";
import { nodeSignatures } from "../../src/platform/node-ports.js";
import { RegistryClient } from "../../src/platform/registry/index.js";
import { EgressPolicy } from "../../src/kube/egress/egress-policy.js";
import { policyUsesNetworkCalls } from "../../src/kube/live-calls.js";
import { egressTransport } from "../../src/kube/registry/egress-transport.js";
import { liveImageData, type LiveRegistry } from "../../src/kube/registry/live-image-data.js";
import { PullSecrets } from "../../src/kube/registry/pull-secrets.js";
import { CallScopes } from "../../src/kube/review-calls.js";
import { fakeContext, fakePorts } from "./fake-ports.js";
import { handleMutateBounded, handleValidateBatch } from "../../src/server/admission/index.js";
import type { ReviewCallsPort } from "../../src/server/admission/review-calls-loop.js";
import { fakeDeps, reviewOf } from "./fake-admission-deps.js";
import type { AdmissionReviewJson, HandlerResult } from "../../src/server/admission/types.js";

export interface RegistryReviewSetup {
  readonly policies: JsonObject[];
  /** `--egress-allow` CIDRs. */
  readonly allow: string[];
  /** Reads a Secret by API path (Bylaw's ServiceAccount, faked). */
  readonly readSecret?: (path: string) => Promise<JsonValue>;
  /** `--image-pull-secret` names. */
  readonly pullSecrets?: string[];
}

export function registryReviewDeps(setup: RegistryReviewSetup) {
  const egress = EgressPolicy.create(setup.allow);
  assert.ok(egress.ok);
  const scopes = new CallScopes();
  const live: LiveRegistry = {
    client: new RegistryClient({ transport: egressTransport(egress.value) }),
    scopes,
    secrets: new PullSecrets(setup.readSecret ?? (async () => ({ data: {} }))),
    ownNamespace: "bylaw",
    pullSecrets: setup.pullSecrets ?? [],
  };
  const ports = {
    ...fakePorts(),
    signatures: nodeSignatures,
    context: {
      ...fakeContext(),
      canLoad: () => true,
      imageData: (ref: string, req?: Parameters<typeof liveImageData>[2]) =>
        liveImageData(live, ref, req ?? { form: "metadata" }),
    },
  };
  const fake = fakeDeps({ policies: setup.policies, ports, realClock: true, deadlineSeconds: 5 });
  const port: ReviewCallsPort = { usesCalls: (p) => policyUsesNetworkCalls(p), begin: () => scopes.begin() };
  return { ...fake.deps, calls: port };
}

/** One review of `object` through the validating handler, awaited. */
export async function reviewObject(
  deps: ReturnType<typeof registryReviewDeps>,
  object: JsonObject,
): Promise<AdmissionReviewJson> {
  const [answer] = handleValidateBatch([reviewOf(object)], deps);
  return (await (answer as HandlerResult | Promise<HandlerResult>)).body as AdmissionReviewJson;
}

/** One review of `object` through the mutating handler, awaited. */
export async function mutateObject(
  deps: ReturnType<typeof registryReviewDeps>,
  object: JsonObject,
): Promise<AdmissionReviewJson> {
  return (await handleMutateBounded(reviewOf(object), deps)).body as AdmissionReviewJson;
}
