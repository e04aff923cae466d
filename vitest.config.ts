import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    setupFiles: ["test/setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Suites start their own redis-server and LangGraph processes; two cores here.
    maxWorkers: 2,
  },
});
