import { execFileSync, spawnSync } from "node:child_process";
import type { AddressInfo } from "node:net";
import type { EmbeddedApp } from "./embedded-app.js";

/** The address of an app's metrics server (started with METRICS_ENABLED true and METRICS_PORT 0). */
export function metricsAddress(app: EmbeddedApp): AddressInfo {
	// Moleculer's Prometheus reporter keeps its HTTP server; with port 0 only it knows the port.
	const reporters = (app.node.broker.metrics as unknown as { reporter: { server?: { address(): AddressInfo } }[] }).reporter;
	const address = reporters.map(r => r.server?.address()).find(Boolean);
	if (!address) throw new Error("no metrics server");
	return address;
}

export function metricsUrl(app: EmbeddedApp): string {
	return `http://127.0.0.1:${metricsAddress(app).port}/metrics`;
}

/** Every series name an exposition text holds (histograms: their `_bucket`, `_sum`, `_count`). */
export function seriesNames(text: string): Set<string> {
	return new Set(text.split("\n").filter(l => l !== "" && !l.startsWith("#")).map(l => l.split(/[{ ]/)[0] as string));
}

function findPromtool(): string | undefined {
	try {
		execFileSync("promtool", ["--version"], { stdio: "ignore" });
		return "promtool";
	} catch {
		return undefined;
	}
}

const promtoolBinary = findPromtool();
if (!promtoolBinary && process.env.CI === "true") throw new Error("promtool is required in CI (apt-get install prometheus)");

/** `describe` where promtool is installed (Debian package `prometheus`), `describe.skip` elsewhere (never in CI). */
export const describePromtool = promtoolBinary ? describe : describe.skip;

/** Runs promtool; its exit code and everything it printed. */
export function promtool(args: string[], input?: string): { code: number | null; output: string } {
	const run = spawnSync(promtoolBinary as string, args, { input, encoding: "utf8" });
	return { code: run.status, output: `${run.stdout}${run.stderr}`.trim() };
}
