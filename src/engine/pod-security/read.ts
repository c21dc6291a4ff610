/**
 * Lenient typed reads of pod JSON. Kyverno decodes the pod into Go structs first; a field of the
 * wrong type is read here as absent (Kyverno would fail the decode with an error result).
 */
import { isObject, type JsonObject, type JsonValue } from "../api/json.js";
import { tick } from "../interrupt/index.js";

export function obj(o: JsonObject | undefined, key: string): JsonObject | undefined {
  const v = o?.[key];
  return isObject(v) ? v : undefined;
}

export function list(o: JsonObject | undefined, key: string): readonly JsonValue[] {
  const v = o?.[key];
  return Array.isArray(v) ? v : [];
}

export function objects(o: JsonObject | undefined, key: string): JsonObject[] {
  return list(o, key).filter((v) => {
    tick();
    return isObject(v);
  });
}

export function text(o: JsonObject | undefined, key: string): string | undefined {
  const v = o?.[key];
  return typeof v === "string" ? v : undefined;
}

export function flag(o: JsonObject | undefined, key: string): boolean | undefined {
  const v = o?.[key];
  return typeof v === "boolean" ? v : undefined;
}

export function num(o: JsonObject | undefined, key: string): number | undefined {
  const v = o?.[key];
  return typeof v === "number" ? v : undefined;
}

export function texts(o: JsonObject | undefined, key: string): string[] {
  return list(o, key).filter((v): v is string => typeof v === "string");
}

/** Whether `key` holds a non-null object (a set Go pointer field). */
export function has(o: JsonObject | undefined, key: string): boolean {
  return isObject(o?.[key]);
}

export const CONTAINER_LISTS = ["initContainers", "containers", "ephemeralContainers"] as const;
export type ContainerList = (typeof CONTAINER_LISTS)[number];

/**
 * Calls `visit` for every container in upstream's order (init containers, containers, ephemeral
 * containers) with its field path, e.g. `spec.initContainers[0]`, and its name.
 */
export function visitContainers(spec: JsonObject, visit: (c: JsonObject, path: string, name: string) => void): void {
  for (const key of CONTAINER_LISTS) {
    list(spec, key).forEach((c, i) => {
      tick();
      const container = isObject(c) ? c : {};
      visit(container, `spec.${key}[${i}]`, text(container, "name") ?? "");
    });
  }
}

export function isWindowsPod(spec: JsonObject): boolean {
  return text(obj(spec, "os"), "name") === "windows";
}
