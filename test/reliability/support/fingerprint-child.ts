// Run as a separate process: prints the fingerprint table for a seed, so a
// test can check fingerprints do not depend on process, heap or locale.
import { fingerprintTable } from "./fingerprint-table.js";

const [seed = "1", count = "50"] = process.argv.slice(2);
process.stdout.write(JSON.stringify(fingerprintTable(Number(seed), Number(count))));
