import type { ActionRef } from "../../shared/contract.js";
import { internal } from "../../shared/errors.js";
import { toInt64, toTimestamp } from "../../shared/proto-json.js";
import { attachmentsActions } from "../attachments/attachments.contract.js";
import { authActions } from "../auth/auth.contract.js";
import { memosActions } from "../memos/memos.contract.js";
import { spacesActions } from "../spaces/spaces.contract.js";

/**
 * InstanceStats (contract 4.11) from the counters of the services that own the data. Each
 * owner answers `<service>.stats` (one call each) with the counters it owns, named as here:
 * auth `userCount`; memos `memoCount`; attachments `attachmentCount`, `attachmentBytes` and
 * `localStorageBytes` (bytes of local blob files, -1 when blobs are on S3); spaces `spaceCount`.
 * An owner that cannot answer fails the page: a counter read as 0 would be a wrong number, not a missing one.
 */
export interface OwnerCounters {
	userCount?: number;
	memoCount?: number;
	attachmentCount?: number;
	attachmentBytes?: number;
	localStorageBytes?: number;
	spaceCount?: number;
}

/** Which counters each owning service reports. */
export const STATS_OWNERS = {
	auth: ["userCount"],
	memos: ["memoCount"],
	attachments: ["attachmentCount", "attachmentBytes", "localStorageBytes"],
	spaces: ["spaceCount"]
} as const satisfies Record<string, readonly (keyof OwnerCounters)[]>;

export type StatsOwner = keyof typeof STATS_OWNERS;

/** The `stats` action of each owner. */
export const STATS_ACTIONS: Record<StatsOwner, ActionRef<undefined, OwnerCounters>> = {
	auth: authActions.stats,
	memos: memosActions.stats,
	attachments: attachmentsActions.stats,
	spaces: spacesActions.stats
};

function counter(value: unknown): number | undefined {
	const n = typeof value === "string" && /^-?\d+$/.test(value) ? Number(value) : value;
	return typeof n === "number" && Number.isSafeInteger(n) ? n : undefined;
}

/** Keeps only the counters `owner` is responsible for; an answer lacking one of them, or not an integer, is INTERNAL. */
export function ownerCounters(owner: StatsOwner, answer: unknown): OwnerCounters {
	const out: OwnerCounters = {};
	const fields = typeof answer === "object" && answer !== null ? (answer as Record<string, unknown>) : {};
	for (const field of STATS_OWNERS[owner]) {
		const n = counter(fields[field]);
		if (n === undefined) throw internal(`instance stats: ${owner}.stats answered no integer ${field}`);
		out[field] = n;
	}
	return out;
}

export function toStatsJson(
	counters: Required<OwnerCounters>,
	database: { driver: "nedb" | "mongodb"; sizeBytes: number },
	now: number
): Record<string, unknown> {
	return {
		database: { driver: database.driver, sizeBytes: toInt64(database.sizeBytes) },
		localStorageBytes: toInt64(counters.localStorageBytes),
		generatedTime: toTimestamp(now),
		userCount: counters.userCount,
		memoCount: counters.memoCount,
		attachmentCount: counters.attachmentCount,
		attachmentBytes: toInt64(counters.attachmentBytes),
		spaceCount: counters.spaceCount
	};
}
