import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores on CI machines: keep worker count small so stdio-server tests do not starve.
    maxWorkers: 2,
  },
});
