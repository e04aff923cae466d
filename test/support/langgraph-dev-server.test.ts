import { Client } from "@langchain/langgraph-sdk";
import { afterAll, describe, expect, it } from "vitest";
import { freePort, groupAlive, startServerProcess, type DevServer } from "./langgraph-dev-server.js";

let server: DevServer | undefined;

afterAll(async () => {
  await server?.stop();
}, 30_000);

describe("npm run dev", () => {
  it("serves the graph on the port from PORT, and stop() ends the whole process group", async () => {
    const port = await freePort();
    const url = `http://localhost:${port}`;
    server = await startServerProcess({ command: "npm", args: ["run", "dev"], url, env: { PORT: String(port) }, readyTimeoutMs: 100_000 });
    const { pid } = server;

    const found = await new Client({ apiUrl: url }).assistants.search({ graphId: "agent" });
    expect(found.map((a) => a.graph_id)).toEqual(["agent"]);
    expect(groupAlive(pid)).toBe(true);

    await server.stop();
    expect(groupAlive(pid)).toBe(false);
    const after = await fetch(`${url}/ok`).then((r) => r.status, () => "refused");
    expect(after).toBe("refused");
  }, 150_000);
});
