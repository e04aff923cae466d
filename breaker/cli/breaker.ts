// `npm run breaker -- list | inspect <session> | reset <session> [--json]`: operate the shared Redis store.
import { runBreakerCli } from "./run-breaker.js";

process.exitCode = await runBreakerCli(process.argv.slice(2), {
  env: process.env,
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
});
