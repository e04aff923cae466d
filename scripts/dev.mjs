// `npm run dev`: `langgraphjs dev --no-browser` on $PORT (default 2024), stopped whole by Ctrl-C or a signal.
//
// The CLI starts the server as a chain of processes (the CLI, tsx watch, the
// server, esbuild) and stops its child only when it exits on its own: a
// signal sent to `npm run dev` alone (a process manager, `kill <pid>`) left
// the server running on its port. So the CLI runs in a process group of its
// own, and a signal this process gets stops the whole group.
// Plain JavaScript: a TypeScript loader would add a process of its own.
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { constants } from "node:os";
import { dirname, join } from "node:path";

/** @type {NodeJS.Signals[]} */
const FORWARDED = ["SIGINT", "SIGTERM", "SIGHUP"];
/** How long the server may take to stop once asked, before what is left of its group is killed. */
const GRACE_MS = 5_000;

const cli = join(dirname(createRequire(import.meta.url).resolve("@langchain/langgraph-cli/package.json")), "dist/cli/cli.mjs");
const port = process.env.PORT || "2024";
const child = spawn(process.execPath, [cli, "dev", "--no-browser", "--port", port, ...process.argv.slice(2)], {
  // Its own process group, so one signal reaches every process the CLI starts.
  detached: process.platform !== "win32",
  stdio: ["ignore", "inherit", "inherit"],
});

/**
 * Send `signal` to the CLI's whole process group (just the CLI where there are no groups); false when nothing is left to signal.
 * @param {NodeJS.Signals | 0} signal
 */
function signalServer(signal) {
  try {
    if (process.platform === "win32" || child.pid === undefined) return child.kill(signal);
    process.kill(-child.pid, signal);
    return true;
  } catch {
    // ESRCH: the group is gone.
    return false;
  }
}

/** Wait until the group is gone, killing what is left of it after the grace period. */
async function serverGone() {
  const deadline = Date.now() + GRACE_MS;
  while (signalServer(0) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  signalServer("SIGKILL");
}

/** @type {NodeJS.Signals | undefined} */
let received;
for (const signal of FORWARDED) {
  process.on(signal, () => {
    // Once: npm passes on a Ctrl-C the terminal sent this process too.
    if (received) return;
    received = signal;
    // SIGTERM whatever came: the server's graceful stop, on which it flushes its state.
    signalServer("SIGTERM");
  });
}

child.on("exit", async (code, signal) => {
  // The CLI is gone; the server it started must follow. Asked once already, it may be flushing its state: a
  // second signal would make tsx force-kill it, so it gets the grace period instead.
  if (!received) signalServer("SIGTERM");
  await serverGone();
  const by = received ?? signal;
  process.exit(code ?? (by ? 128 + (constants.signals[by] ?? 0) : 1));
});

// If this process dies any other way, the server must not outlive it.
process.on("exit", () => signalServer("SIGKILL"));
