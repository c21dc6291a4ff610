export { readCatalog, selectSets, type SetSelection } from "./catalog.js";
export { readPolicySet, parsePolicySet, type SetRead } from "./read-set.js";
export { loadSetDocuments, describeSetPolicies, type SetPolicy } from "./set-documents.js";
export { packageRoot, packageVersion, policySetsDir } from "./sets-dir.js";
export {
  POLICY_SET_API_VERSION,
  POLICY_SET_FILE,
  POLICY_SET_KIND,
  POLICY_SETS_DIR_ENV,
  type PolicySet,
  type PolicySetCatalog,
} from "./types.js";
