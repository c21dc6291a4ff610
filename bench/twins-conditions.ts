/**
 * The prepared set operators against the general ones, on the Pod Security library's two set
 * conditions (restrict-volume-types and disallow-capabilities, both AnyNotIn against a fixed list),
 * run through compiled conditions with the key already substituted.
 */
import type { JsonValue } from "../src/engine/api/json.js";
import { ok } from "../src/engine/api/result.js";
import {
  compileConditions,
  runConditions,
  type CompiledCondition,
  type CompiledConditions,
} from "../src/engine/conditions/compile.js";
import { operatorFor } from "../src/engine/conditions/operators.js";
import type { PairedCase } from "./paired.js";

const VOLUME_TYPES = [
  "name",
  "configMap",
  "csi",
  "downwardAPI",
  "emptyDir",
  "ephemeral",
  "persistentVolumeClaim",
  "projected",
  "secret",
  "",
];
const CAPABILITIES = [
  "AUDIT_WRITE",
  "CHOWN",
  "DAC_OVERRIDE",
  "FOWNER",
  "FSETID",
  "KILL",
  "MKNOD",
  "NET_BIND_SERVICE",
  "SETFCAP",
  "SETGID",
  "SETPCAP",
  "SETUID",
  "SYS_CHROOT",
];

/** The same conditions with every operator the general one. */
function general(compiled: CompiledConditions): CompiledConditions {
  if (compiled.kind !== "any-all") throw new Error("expected {any, all} conditions");
  const swap = (c: CompiledCondition): CompiledCondition => ({ ...c, operator: operatorFor(c.operatorName) });
  return { ...compiled, any: compiled.any.map(swap), all: compiled.all.map(swap) };
}

function setCase(label: string, list: readonly JsonValue[], key: JsonValue): PairedCase {
  return {
    label: `conditions: AnyNotIn ${label}`,
    arms: ["prepared set", "general operator"],
    setup: () => {
      const prepared = compileConditions(
        { all: [{ key: "{{ keys }}", operator: "AnyNotIn", value: [...list] }] },
        "deny conditions",
      );
      const plain = general(prepared);
      const substitute = () => ok(key);
      return [() => void runConditions(prepared, substitute), () => void runConditions(plain, substitute)];
    },
  };
}

export const conditionCases: Readonly<Record<string, PairedCase>> = {
  "set-volumes": setCase("volume types (10 items), keys of 3 volumes", VOLUME_TYPES, [
    "name",
    "emptyDir",
    "name",
    "configMap",
    "name",
    "secret",
  ]),
  "set-capabilities": setCase("capabilities (13 items), 2 added", CAPABILITIES, ["NET_BIND_SERVICE", "CHOWN"]),
  "set-none": setCase("capabilities (13 items), none added", CAPABILITIES, []),
};
