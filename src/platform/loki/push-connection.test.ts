import { test } from "node:test";
import assert from "node:assert/strict";
import { connectionHeaders } from "./push-connection.js";

test("the tenant goes in X-Scope-OrgID; basic and bearer authentication in Authorization; extra headers as given", () => {
  assert.deepEqual(
    connectionHeaders({ url: "http://l", tenant: "team-a", auth: { basic: { username: "u", password: "p:w" } } }),
    { "X-Scope-OrgID": "team-a", Authorization: `Basic ${Buffer.from("u:p:w").toString("base64")}` },
  );
  assert.deepEqual(connectionHeaders({ url: "http://l", auth: { bearerToken: "t0k" }, headers: { "X-A": "1" } }), {
    "X-A": "1",
    Authorization: "Bearer t0k",
  });
  assert.deepEqual(connectionHeaders({ url: "http://l" }), {});
});
