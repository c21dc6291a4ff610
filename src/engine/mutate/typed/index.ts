/** Kubernetes' typed objects (structured-merge-diff) as a MutatingPolicy's ApplyConfiguration meets them. */
export { applyConfigurationRefusal } from "./apply-configuration-refusal.js";
export { builtinTypedKinds, type TypedKinds } from "./typed-schema.js";
export { typedSchemaFromOpenApi, type TypedSchemaData } from "./from-openapi.js";
export { offlineTypedKinds, typedKindsOf } from "./typed-schema.js";
export { mergeTypedSchemaData, typedKindsWithCrds, typedSchemaWithCrds } from "./crd-typed-kinds.js";
