/**
 * The standard built-in functions of the original JMESPath specification, as go-jmespath
 * implements them. Kyverno replaces `sum` with its own (registered later, same name wins).
 */
import type { FunctionDef } from "../../types.js";
import { expressionFunctions } from "./by-expression.js";
import { collectionFunctions } from "./collections.js";
import { conversionFunctions } from "./conversion.js";
import { mathFunctions } from "./math.js";
import { stringFunctions } from "./strings.js";

export const builtinFunctions: readonly FunctionDef[] = [
  ...mathFunctions,
  ...stringFunctions,
  ...collectionFunctions,
  ...expressionFunctions,
  ...conversionFunctions,
].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
