import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { gunzipSync } from "node:zlib";

/** A run as the LangSmith client reported it: its create and update operations merged. */
export interface TracedRun {
  id: string;
  name?: string;
  trace_id?: string;
  parent_run_id?: string;
  run_type?: string;
  tags?: string[];
  extra?: { metadata?: Record<string, unknown> };
  outputs?: Record<string, unknown>;
  end_time?: string | number;
  [key: string]: unknown;
}

/** A local stand-in for the LangSmith API: answers /info and records every run posted. */
export interface FakeLangSmith {
  /** For LANGSMITH_ENDPOINT. */
  url: string;
  /** Every run received so far, by id, creates and updates merged. */
  runs(): TracedRun[];
  /** The ingestion paths the client used (e.g. /runs/multipart, /runs/batch). */
  paths(): string[];
  close(): Promise<void>;
}

// What the client learns from /info: plain multipart, no compression (Node 20 has no zstd).
const SERVER_INFO = {
  version: "0.10.0",
  batch_ingest_config: { use_multipart_endpoint: true, size_limit: 100, size_limit_bytes: 20_971_520, scale_up_nthreads_limit: 16, scale_up_qsize_trigger: 1000, scale_down_nempty_trigger: 4 },
  instance_flags: { gzip_body_enabled: false, zstd_compression_enabled: false },
};

async function bodyOf(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks);
  return request.headers["content-encoding"] === "gzip" ? gunzipSync(body) : body;
}

/**
 * Operations of a multipart ingest: parts named `post.<id>`, `patch.<id>`,
 * and `post.<id>.<field>` (inputs, outputs, events...) for fields sent apart.
 */
async function multipartOperations(body: Buffer, contentType: string): Promise<{ id: string; fields: Record<string, unknown> }[]> {
  const form = await new Response(body, { headers: { "content-type": contentType } }).formData();
  const operations: { id: string; fields: Record<string, unknown> }[] = [];
  for (const [name, value] of form.entries()) {
    const [kind, id, field] = name.split(".");
    if ((kind !== "post" && kind !== "patch") || !id) continue;
    const json = JSON.parse(typeof value === "string" ? value : await value.text()) as unknown;
    operations.push({ id, fields: field ? { [field]: json } : (json as Record<string, unknown>) });
  }
  return operations;
}

/** Start the stand-in on a free port. */
export async function startFakeLangSmith(): Promise<FakeLangSmith> {
  const runs = new Map<string, TracedRun>();
  const paths: string[] = [];
  const merge = (id: string, fields: Record<string, unknown>): void => {
    runs.set(id, { ...runs.get(id), ...fields, id } as TracedRun);
  };

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const path = new URL(request.url ?? "/", "http://localhost").pathname;
    const json = (status: number, body: unknown) => {
      response.writeHead(status, { "content-type": "application/json" });
      response.end(JSON.stringify(body));
    };
    if (request.method === "GET" && path.endsWith("/info")) return json(200, SERVER_INFO);
    if (request.method !== "POST" && request.method !== "PATCH") return json(404, { detail: "Not found" });
    const body = await bodyOf(request);
    paths.push(path);
    if (path.endsWith("/runs/multipart")) {
      for (const { id, fields } of await multipartOperations(body, request.headers["content-type"] ?? "")) merge(id, fields);
    } else if (path.endsWith("/runs/batch")) {
      const batch = JSON.parse(body.toString("utf8")) as { post?: TracedRun[]; patch?: TracedRun[] };
      for (const run of [...(batch.post ?? []), ...(batch.patch ?? [])]) merge(run.id, run);
    } else if (path.endsWith("/runs")) {
      const run = JSON.parse(body.toString("utf8")) as TracedRun;
      merge(run.id, run);
    } else if (/\/runs\/[^/]+$/.test(path)) {
      merge(path.split("/").at(-1)!, JSON.parse(body.toString("utf8")) as Record<string, unknown>);
    }
    return json(202, {});
  };

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      response.writeHead(500, { "content-type": "application/json" });
      response.end(JSON.stringify({ detail: String(error) }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    runs: () => [...runs.values()],
    paths: () => [...paths],
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
