/** Which list failures of a policies.kyverno.io kind Bylaw does not evaluate leave it ready (policy-informers.ts). */
import { test } from "node:test";
import assert from "node:assert/strict";
import { notInstalled } from "./policy-informers.js";

test("only a resource the server does not have (CRD not installed) is 'not installed'; forbidden and other failures are not", () => {
  assert.equal(notInstalled("404"), true, "no such group: the API server's plain 404 page");
  assert.equal(notInstalled("the server could not find the requested resource"), true);
  assert.equal(
    notInstalled(
      'mutatingpolicies.policies.kyverno.io is forbidden: User "system:serviceaccount:bylaw:bylaw" cannot list resource',
    ),
    false,
  );
  assert.equal(notInstalled("GET /apis/policies.kyverno.io/v1beta1/mutatingpolicies: connect ECONNREFUSED"), false);
  assert.equal(notInstalled(undefined), false, "not failed yet: still listing");
});
