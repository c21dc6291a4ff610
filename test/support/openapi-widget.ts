/** A custom kind's OpenAPI v3 group-version document and an API server's /openapi/v3 that serves it, for the typing tests. */

/** example.io/v1 Widget, whose spec declares `properties` (default: size, an integer). */
export function widgetOpenApi(properties: Record<string, unknown> = { size: { type: "integer" } }) {
  return {
    components: {
      schemas: {
        "io.example.v1.Widget": {
          type: "object",
          "x-kubernetes-group-version-kind": [{ group: "example.io", version: "v1", kind: "Widget" }],
          properties: {
            apiVersion: { type: "string" },
            kind: { type: "string" },
            metadata: { type: "object", additionalProperties: true },
            spec: { type: "object", properties },
          },
        },
      },
    },
  };
}

/** /openapi/v3 answering `answers` by path (an Error is a failed read, a path not given a 404), counting its reads. */
export function fakeOpenApiServer(answers: Record<string, unknown>) {
  const reads: string[] = [];
  return {
    reads,
    answers,
    getJson(path: string): Promise<unknown> {
      reads.push(path);
      const a = answers[path];
      return a instanceof Error
        ? Promise.reject(a)
        : a === undefined
          ? Promise.reject(new Error("404"))
          : Promise.resolve(a);
    },
  };
}

/** The index and document of a server that serves example.io/v1 at hash A. */
export const WIDGET_SERVED: Record<string, unknown> = {
  "/openapi/v3": { paths: { "apis/example.io/v1": { serverRelativeURL: "/openapi/v3/apis/example.io/v1?hash=A" } } },
  "/openapi/v3/apis/example.io/v1?hash=A": widgetOpenApi(),
};
