/** The libraries of Kyverno 1.19's CEL environment that Bylaw provides (ADR 0010 lists the rest). */
import type { CelLibrary } from "../library.js";
import { encoderLibrary } from "./encoders.js";
import { ipLibraries } from "./ip.js";
import { listLibraries } from "./lists.js";
import { mathLibrary } from "./math.js";
import { namedFormatLibrary } from "./named-format.js";
import { quantityLibrary } from "./quantity.js";
import { regexLibraries } from "./regex.js";
import { semverLibrary } from "./semver.js";
import { setsLibrary } from "./sets.js";
import { standardExtras } from "./standard.js";
import { stringLibrary } from "./strings.js";
import { urlLibrary } from "./url.js";

export { RE2_MATCHES } from "./regex.js";

/** Fresh instances (each with its own regex cache): one set per CEL engine, no module state. */
export function defaultLibraries(): CelLibrary[] {
  return [
    standardExtras(),
    ...regexLibraries(),
    stringLibrary(),
    ...listLibraries(),
    setsLibrary(),
    mathLibrary(),
    encoderLibrary(),
    quantityLibrary(),
    urlLibrary(),
    ...ipLibraries(),
    semverLibrary(),
    namedFormatLibrary(),
  ];
}
