import type { ActionRef } from "../../shared/contract.js";
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

/** The `stats` action of each owner. */
export const STATS_ACTIONS: Record<keyof typeof STATS_OWNERS, ActionRef<undefined, OwnerCounters>> = {
	auth: authActions.stats,
	memos: memosActions.stats,
	attachments: attachmentsActions.stats,
	spaces: spacesActions.stats
};

/** Byte figures that cannot be measured read as -1, counts of an absent service as 0. */
const BYTE_FIELDS: ReadonlySet<keyof OwnerCounters> = new Set(["attachmentBytes", "localStorageBytes"]);

function counter(value: unknown): number | undefined {
	const n = typeof value === "string" && /^-?\d+$/.test(value) ? Number(value) : value;
	return typeof n === "number" && Number.isSafeInteger(n) ? n : undefined;
}

/** Keeps only the counters `owner` is responsible for, dropping anything that is not an integer. */
export function ownerCounters(owner: keyof typeof STATS_OWNERS, answer: unknown): OwnerCounters {
	const out: OwnerCounters = {};
	if (typeof answer !== "object" || answer === null) return out;
	for (const field of STATS_OWNERS[owner]) {
		const n = counter((answer as Record<string, unknown>)[field]);
		if (n !== undefined) out[field] = n;
	}
	return out;
}

export function toStatsJson(
	counters: OwnerCounters,
	database: { driver: "nedb" | "mongodb"; sizeBytes: number },
	now: number
): Record<string, unknown> {
	const count = (field: keyof OwnerCounters) => counters[field] ?? (BYTE_FIELDS.has(field) ? -1 : 0);
	return {
		database: { driver: database.driver, sizeBytes: toInt64(database.sizeBytes) },
		localStorageBytes: toInt64(count("localStorageBytes")),
		generatedTime: toTimestamp(now),
		userCount: count("userCount"),
		memoCount: count("memoCount"),
		attachmentCount: count("attachmentCount"),
		attachmentBytes: toInt64(count("attachmentBytes")),
		spaceCount: count("spaceCount")
	};
}
