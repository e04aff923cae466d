import { MemoryStore } from "../../breaker/index.js";
import { hostileBreakerSuite } from "./support/hostile-breaker-suite.js";

// The Redis runs of the same suite live in redis-hostile-input.test.ts.
hostileBreakerSuite("MemoryStore", { store: () => new MemoryStore(), numRuns: 400 });
