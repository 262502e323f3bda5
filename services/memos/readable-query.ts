import type { Caller } from "../../shared/caller.js";
import type { Filter } from "../../shared/store/document-store.js";

/**
 * `common` narrowed to the memos `caller` may read (contract 3.2), as one store query:
 * anonymous callers PUBLIC ones; others their own, PUBLIC and PROTECTED ones, and SPACE ones
 * of `spaceIds` (the spaces they belong to). Each branch of the `$or` starts with `common`'s
 * equality fields, so MongoDB can answer it from a compound index.
 */
export function readableQuery(common: Filter, caller: Caller | null, spaceIds: readonly string[]): Filter {
	if (caller === null) return { ...common, visibility: "PUBLIC" };
	const branches: Filter[] = [
		{ ...common, creatorId: caller.id },
		{ ...common, visibility: { $in: ["PUBLIC", "PROTECTED"] } }
	];
	if (spaceIds.length > 0) branches.push({ ...common, visibility: "SPACE", spaceId: { $in: [...spaceIds] } });
	return { $or: branches };
}
