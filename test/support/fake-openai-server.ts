import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { completionBody, completionChunks, resolveReply, type ScriptedReply } from "./fake-openai-render.js";
import { openaiError, validateChatRequest, type OpenAIErrorResponse } from "./fake-openai-validate.js";

export type { ScriptedReply, ScriptedToolCall, ScriptedUsage } from "./fake-openai-render.js";
export { openaiError, type OpenAIErrorResponse } from "./fake-openai-validate.js";

/** A chat completion request body that passed validation. */
export interface ChatCompletionRequest {
  model: string;
  messages: Record<string, unknown>[];
  tools?: { type: "function"; function: { name: string; description?: string; parameters?: object } }[];
  tool_choice?: unknown;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  [key: string]: unknown;
}

/**
 * Decides the fake model's next reply from the request; `turn` counts the
 * completions served so far. A script may also return an error response, to
 * play a refusal the real API would send.
 */
export type CompletionScript = (
  request: ChatCompletionRequest,
  turn: number,
) => ScriptedReply | OpenAIErrorResponse | Promise<ScriptedReply | OpenAIErrorResponse>;

/** One request the server received, kept for assertions. */
export interface RecordedRequest {
  method: string;
  path: string;
  /** The Authorization header as sent, if any. */
  authorization?: string;
  /** The parsed JSON body (or the raw text when it was not JSON). */
  body: unknown;
  status: number;
  error?: OpenAIErrorResponse["body"]["error"];
}

/** Options of the fake server. */
export interface FakeOpenAIOptions {
  /** A function of the request, or a queue of replies served in order. */
  script?: CompletionScript | ScriptedReply[];
  /** When set, a bearer token other than this one gets the real API's 401. */
  apiKey?: string;
  /** Answer a wrong key with the whole key in the message, as some proxies do (OpenAI masks it). */
  echoKeyOnAuthError?: boolean;
  /** See `ValidateOptions.strictToolNames`; default true. */
  strictToolNames?: boolean;
}

/** A running fake OpenAI server. */
export interface FakeOpenAIServer {
  /** Pass as ChatOpenAI's `configuration.baseURL` (or OPENAI_BASE_URL); ends in `/v1`. */
  baseURL: string;
  /** Every request received, rejected ones included, in arrival order. */
  requests: RecordedRequest[];
  /** The chat completion requests that were served a reply (a view of `requests`: clear that to reset both). */
  completions(): ChatCompletionRequest[];
  /** Replace the script; the turn counter starts again at 0. */
  setScript(script: CompletionScript | ScriptedReply[]): void;
  close(): Promise<void>;
}

/** A script that serves the replies in order and refuses once they run out. */
export function queueScript(replies: ScriptedReply[]): CompletionScript {
  return (_request, turn) =>
    replies[turn] ??
    openaiError(400, `Fake OpenAI script exhausted after ${replies.length} replies.`, null, "script_exhausted", "fake_script_error");
}

const COMPLETION_PATHS = new Set(["/v1/chat/completions", "/chat/completions"]);

function isErrorResponse(r: ScriptedReply | OpenAIErrorResponse): r is OpenAIErrorResponse {
  return "status" in r && "body" in r;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  return Buffer.concat(parts).toString("utf8");
}

function checkAuth(header: string | undefined, apiKey: string | undefined, echo = false): OpenAIErrorResponse | null {
  const token = header?.startsWith("Bearer ") ? header.slice("Bearer ".length).trim() : "";
  if (token === "") {
    return openaiError(
      401,
      "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
    );
  }
  if (apiKey !== undefined && token !== apiKey) {
    return openaiError(401, `Incorrect API key provided: ${echo ? token : `${token.slice(0, 3)}***`}. You can find your API key at https://platform.openai.com/account/api-keys.`, null, "invalid_api_key");
  }
  return null;
}

/** Start an OpenAI-compatible chat completions server on a free port of 127.0.0.1. */
export async function startFakeOpenAI(options: FakeOpenAIOptions = {}): Promise<FakeOpenAIServer> {
  const requests: RecordedRequest[] = [];
  const toScript = (s: CompletionScript | ScriptedReply[]): CompletionScript => (Array.isArray(s) ? queueScript(s) : s);
  let script = toScript(options.script ?? []);
  let turn = 0;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    let body: unknown = raw;
    try {
      body = raw === "" ? undefined : JSON.parse(raw);
    } catch {
      // Kept as text: validation answers with the real API's parse error.
    }
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    const record: RecordedRequest = { method: req.method ?? "", path, body, status: 200 };
    if (req.headers.authorization !== undefined) record.authorization = req.headers.authorization;
    requests.push(record);

    const fail = (e: OpenAIErrorResponse): void => {
      record.status = e.status;
      record.error = e.body.error;
      res.writeHead(e.status, { "content-type": "application/json" }).end(JSON.stringify(e.body));
    };
    if (req.method !== "POST" || !COMPLETION_PATHS.has(path)) return fail(openaiError(404, `Invalid URL (${req.method} ${path})`));
    const refused = checkAuth(req.headers.authorization, options.apiKey, options.echoKeyOnAuthError) ?? validateChatRequest(body, { strictToolNames: options.strictToolNames ?? true });
    if (refused) return fail(refused);

    const request = body as ChatCompletionRequest;
    let reply: ScriptedReply | OpenAIErrorResponse;
    try {
      reply = await script(request, turn);
    } catch (err) {
      // 400 rather than 500: clients retry a 5xx with backoff, which would hide the script bug behind a slow test.
      reply = openaiError(400, `Fake OpenAI script failed: ${String(err)}`, null, "script_error", "fake_script_error");
    }
    if (isErrorResponse(reply)) return fail(reply);
    turn += 1;

    const rendered = resolveReply(reply, request.model, raw.length);
    if (request.stream !== true) {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(completionBody(rendered)));
      return;
    }
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
    for (const chunk of completionChunks(rendered, request.stream_options?.include_usage === true)) {
      res.write(`data: ${JSON.stringify(chunk)}\n\n`);
    }
    res.end("data: [DONE]\n\n");
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify(openaiError(500, `Fake OpenAI server error: ${String(err)}`, null, null, "server_error").body));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    completions: () => requests.filter((r) => r.status === 200).map((r) => r.body as ChatCompletionRequest),
    setScript(next) {
      script = toScript(next);
      turn = 0;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
