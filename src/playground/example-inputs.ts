/** What the playground shows before anything is pasted: a validate and a mutate rule, and a Pod each has something to say about. */
import type { PlaygroundInputs } from "./share-link.js";

export const EXAMPLE: PlaygroundInputs = {
  policies: `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: disallow-latest-tag
spec:
  validationFailureAction: Enforce
  rules:
    - name: validate-image-tag
      match:
        any:
          - resources:
              kinds: [Pod]
      validate:
        message: "An image tag other than latest is required."
        pattern:
          spec:
            containers:
              - image: "!*:latest"
---
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: add-team-label
spec:
  rules:
    - name: add-team
      match:
        any:
          - resources:
              kinds: [Pod]
      mutate:
        patchStrategicMerge:
          metadata:
            labels:
              +(team): unknown
`,
  resources: `apiVersion: v1
kind: Pod
metadata:
  name: web
  namespace: shop
spec:
  containers:
    - name: web
      image: nginx:latest
`,
  values: "",
};
