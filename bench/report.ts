import os from "node:os";
import type { Measured } from "./measure.js";
import { LIST_PAGE_ROW, UNCACHED_SUFFIX, type Row } from "./rows.js";
import type { TransferResult, UploadMemory } from "./transfer.js";

export interface RowResult {
	row: Row;
	measured: Measured;
}

export interface RunFacts {
	memos: number;
	comments: number;
	users: number;
	spaces: number;
	seedSeconds: number;
	/** The DATA_DIR was copied from `--seed-cache`, seeded by an earlier run in `seedSeconds`. */
	seedReused: boolean;
	durationSeconds: number;
	transfers: TransferResult[];
	gatewayUploadMemory: UploadMemory;
	startupMs: number;
	startupCpuMs: number;
	memory: { readyMiB: number; afterLoadMiB: number; peakMiB: number };
	loadBefore: number[];
	loadAfter: number[];
}

const number = (value: number, digits = 0) => value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
const percent = (part: number, whole: number) => (whole > 0 ? `${number((100 * part) / whole)} %` : "—");
const uploadsOf = (memory: UploadMemory) => `${memory.uploads} concurrent ${number(memory.mibEach)} MiB tus uploads`;
/** Issue 19: the gateway's RSS under 8 concurrent 30 MiB uploads. */
const GATEWAY_RSS_TARGET_MIB = 256;
const loads = (values: number[]) => values.map(v => v.toFixed(2)).join(", ");

export function machine(): string {
	const cpus = os.cpus();
	return `${cpus.length} × ${cpus[0]?.model.trim() ?? "unknown CPU"}, ${number(os.totalmem() / 2 ** 30)} GiB, ${os.type()} ${os.release()}, Node ${process.version}`;
}

function rateOf(results: RowResult[], target: Row["target"], name?: string): number {
	return results.find(r => r.row.target === target && (name === undefined || r.row.name === name))?.measured.requestsPerSecond ?? 0;
}

/** The table (Markdown, ready for the README), then the run's facts and each target of issue 15. */
export function report(results: RowResult[], facts: RunFacts): string {
	const raw = rateOf(results, "raw");
	const lines = [
		`memos bench: ${number(facts.memos)} memos and ${number(facts.comments)} comments by ${facts.users} users in ${facts.spaces} spaces; ${facts.durationSeconds} s per row after a warm-up`,
		`machine: ${machine()}`,
		`load average (1, 5, 15 min): ${loads(facts.loadBefore)} before, ${loads(facts.loadAfter)} after`,
		"",
		"| request | clients | req/s | p50 | p99 | vs raw node:http | server CPU per request |",
		"|---|---:|---:|---:|---:|---:|---:|",
		...results.map(({ row, measured }) => {
			const failed = measured.failures > 0 ? ` (**${number(measured.failures)} failed**)` : "";
			return `| ${row.name}${failed} | ${row.connections} | ${number(measured.requestsPerSecond)} | ${number(measured.p50Ms)} ms | ${number(measured.p99Ms)} ms | ${percent(measured.requestsPerSecond, raw)} | ${number(measured.cpuUsPerRequest)} µs |`;
		}),
		"",
		"| transfer | MiB | seconds | MiB/s | server CPU s per GiB |",
		"|---|---:|---:|---:|---:|",
		...facts.transfers.map(t => `| ${t.name} | ${number(t.bytes / 2 ** 20)} | ${number(t.seconds, 2)} | ${number(t.mibPerSecond, 1)} | ${number(t.cpuSecondsPerGiB, 2)} |`),
		"",
		`cluster gateway RSS while ${uploadsOf(facts.gatewayUploadMemory)} run: ${number(facts.gatewayUploadMemory.beforeMiB)} MiB before, ${number(facts.gatewayUploadMemory.peakMiB)} MiB peak`,
		`seeding through the services' actions: ${number(facts.seedSeconds, 1)} s${facts.seedReused ? " (by an earlier run; this one copied its DATA_DIR from --seed-cache)" : ""}`,
		`embedded app start-up with the seeded data (spawn to ready): ${number(facts.startupMs)} ms, ${number(facts.startupCpuMs)} ms of CPU`,
		`embedded app RSS: ${number(facts.memory.readyMiB)} MiB at ready, ${number(facts.memory.afterLoadMiB)} MiB after the rows, ${number(facts.memory.peakMiB)} MiB peak`
	];
	const profile = rateOf(results, "app", "GetInstanceProfile");
	const list = rateOf(results, "app", LIST_PAGE_ROW);
	const uncachedList = rateOf(results, "app-uncached", `${LIST_PAGE_ROW}${UNCACHED_SUFFIX}`);
	const create = results.find(r => r.row.name.startsWith("CreateMemo"))?.measured.requestsPerSecond ?? 0;
	const targets: [string, boolean][] = [
		[`profile embedded ≥ 50 % of raw: ${percent(profile, raw)}`, profile >= raw * 0.5],
		[`profile over NATS ≥ 25 % of raw: ${percent(rateOf(results, "cluster"), raw)}`, rateOf(results, "cluster") >= raw * 0.25],
		[
			`ListMemos page 50 ≥ 40 % of profile: ${percent(list, profile)} the same list asked again (the response cache), ${percent(uncachedList, profile)} computed (MEMO_LIST_CACHE_MB=0)`,
			list >= profile * 0.4
		],
		[`CreateMemo ≥ 1,000/s with 16 clients: ${number(create)}/s`, create >= 1000]
	];
	if (facts.memos >= 100_000) {
		targets.push([`start-up ≤ 2 s at ${number(facts.memos)} memos: ${number(facts.startupMs)} ms (${number(facts.startupCpuMs)} ms of CPU)`, facts.startupMs <= 2000]);
		targets.push([`RSS ≤ 200 MB at ${number(facts.memos)} memos: ${number((facts.memory.peakMiB * 2 ** 20) / 1e6)} MB peak`, facts.memory.peakMiB * 2 ** 20 <= 200e6]);
	}
	// A run of the transfers alone (--transfers-only) measured none of issue 15's.
	if (results.length > 0) lines.push("", "targets (issue 15):", ...targets.map(([text, met]) => `- ${met ? "met" : "NOT met"}: ${text}`));
	const rate = (prefix: string, label: string) => facts.transfers.find(t => t.name.startsWith(prefix) && t.name.endsWith(`(${label})`))?.mibPerSecond ?? 0;
	const transferTargets: [string, number][] = [
		["tus upload", 200],
		["JSON chunked upload", 100],
		["file-route download", 400]
	];
	const gatewayPeak = facts.gatewayUploadMemory.peakMiB;
	lines.push(
		"",
		"targets (issue 19):",
		...transferTargets.flatMap(([row, target]) => {
			const embedded = rate(row, "embedded");
			const cluster = rate(row, "cluster");
			return [
				`- ${embedded >= target ? "met" : "NOT met"}: ${row} embedded ≥ ${target} MiB/s: ${number(embedded, 1)} MiB/s`,
				`- ${cluster >= target / 2 ? "met" : "NOT met"}: ${row} cluster ≥ ${target / 2} MiB/s (50 % of the embedded target): ${number(cluster, 1)} MiB/s`
			];
		}),
		`- ${gatewayPeak <= GATEWAY_RSS_TARGET_MIB ? "met" : "NOT met"}: cluster gateway RSS under ${uploadsOf(facts.gatewayUploadMemory)} ≤ ${GATEWAY_RSS_TARGET_MIB} MiB: ${number(gatewayPeak)} MiB peak`
	);
	return lines.join("\n");
}
