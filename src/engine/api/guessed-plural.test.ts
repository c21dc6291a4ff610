import { test } from "node:test";
import assert from "node:assert/strict";
import { guessedPlural } from "./guessed-plural.js";

test("guessedPlural guesses as Kubernetes' UnsafeGuessKindToResource", () => {
  assert.deepEqual(["Pod", "Ingress", "NetworkPolicy", "Endpoints", "Widget", "Mouse", ""].map(guessedPlural), [
    "pods",
    "ingresses",
    "networkpolicies",
    "endpoints",
    "widgets",
    "mouses",
    "",
  ]);
});
