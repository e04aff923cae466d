import { serverStore } from "../graphs/store-from-env.js";
import { createRedactor } from "../nodes/redact.js";
import { adminTokenFromEnv } from "./admin-token.js";
import { createOpsApp } from "./ops-app.js";
import { registerPrometheusMetrics, type PrometheusMetrics } from "./prometheus-metrics.js";

const token = adminTokenFromEnv(process.env);
const redact = createRedactor(process.env);

// Nothing is registered globally unless the operator turned the routes on.
const unused: PrometheusMetrics = { text: () => Promise.reject(new Error("The ops routes are off.")) };

/** The app langgraph.json mounts on the LangGraph server (`http.app`): the breaker's ops routes, over the graph's store. */
export const app = createOpsApp({
  token,
  store: serverStore(),
  metrics: token ? registerPrometheusMetrics() : unused,
  log: (line) => console.warn(redact.text(line)),
});
