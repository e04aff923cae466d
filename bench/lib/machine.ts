import { readFileSync } from "node:fs";
import os from "node:os";

/** Where the numbers were measured: absolute times only mean something next to this. */
export interface MachineInfo {
  cpuModel: string;
  cpuCount: number;
  totalMemoryGb: number;
  os: string;
  node: string;
  redis?: string;
  /** 1, 5 and 15 minute load averages when the run ended: a busy machine shows here. */
  loadAverage: number[];
  packages: Record<string, string>;
}

// Read straight from node_modules: some packages' export maps hide package.json.
function packageVersion(name: string): string {
  try {
    const file = new URL(`../../node_modules/${name}/package.json`, import.meta.url);
    return (JSON.parse(readFileSync(file, "utf8")) as { version: string }).version;
  } catch {
    return "unknown";
  }
}

/** Describe this machine and the versions that matter to the results. */
export function machineInfo(redisVersion?: string): MachineInfo {
  const cpus = os.cpus();
  return {
    cpuModel: cpus[0]?.model.trim() ?? "unknown",
    cpuCount: cpus.length,
    totalMemoryGb: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    os: `${os.type()} ${os.release()} (${os.arch()})`,
    node: process.version,
    ...(redisVersion ? { redis: redisVersion } : {}),
    loadAverage: os.loadavg().map((n) => Math.round(n * 100) / 100),
    packages: Object.fromEntries(
      ["@langchain/langgraph", "@langchain/core", "ioredis"].map((name) => [name, packageVersion(name)]),
    ),
  };
}
