/** Kyverno's custom JMESPath functions (51), each family in its own file. */
import type { FunctionDef } from "../../types.js";
import { arithmeticFunctions } from "./arithmetic.js";
import { encodingFunctions } from "./encoding.js";
import { imageFunctions, type ImageOptions } from "./image.js";
import { networkFunctions } from "./network.js";
import { randomFunctions } from "./random.js";
import { regexFunctions } from "./regex.js";
import { semverFunctions } from "./semver-compare.js";
import { stringFunctions } from "./strings.js";
import { structureFunctions } from "./structure.js";
import { timeFunctions } from "./time.js";
import { x509Functions } from "./x509.js";

type KyvernoFunctionOptions = ImageOptions;

/**
 * All of Kyverno's custom functions. Register them after the built-ins: `sum` replaces the
 * built-in of the same name. Options carry Kyverno ConfigMap settings (`image_normalize`).
 */
export function kyvernoFunctions(options: KyvernoFunctionOptions = {}): readonly FunctionDef[] {
  return [
    ...stringFunctions,
    ...regexFunctions,
    ...arithmeticFunctions,
    ...encodingFunctions,
    ...structureFunctions,
    ...timeFunctions,
    ...semverFunctions,
    ...imageFunctions(options),
    ...networkFunctions,
    ...x509Functions,
    ...randomFunctions,
  ];
}
