/** The `cli.kyverno.io/v1alpha1` UserInfo file: roles, clusterRoles and the admission userInfo. */
import { isObject, type JsonValue, type RequestUserInfo } from "../../engine/index.js";

type UserInfoOutcome = { ok: true; userInfo: RequestUserInfo } | { ok: false; error: string };

export function parseUserInfo(doc: JsonValue): UserInfoOutcome {
  if (!isObject(doc)) return { ok: false, error: "the userinfo file must be a mapping" };
  if (doc["apiVersion"] === undefined || doc["kind"] === undefined) {
    return {
      ok: false,
      error:
        "the userinfo file uses a deprecated schema (no apiVersion/kind); use apiVersion: cli.kyverno.io/v1alpha1, kind: UserInfo",
    };
  }
  const info = isObject(doc["userInfo"]) ? doc["userInfo"] : {};
  const strs = (v: JsonValue | undefined): string[] =>
    Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
  return {
    ok: true,
    userInfo: {
      username: typeof info["username"] === "string" ? info["username"] : "",
      groups: strs(info["groups"]),
      ...(typeof info["uid"] === "string" ? { uid: info["uid"] } : {}),
      roles: strs(doc["roles"]),
      clusterRoles: strs(doc["clusterRoles"]),
    },
  };
}
