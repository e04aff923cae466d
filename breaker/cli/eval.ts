// `npm run eval -- <file>... [--json] [--policy <file>]`: replay recorded trajectories through the breaker.
import { runEval } from "./run-eval.js";

const code = await runEval(process.argv.slice(2), {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
  columns: process.stdout.columns,
});
process.exitCode = code;
