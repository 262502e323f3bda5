import type { Caller } from "../../shared/caller.js";
import { ServiceError } from "../../shared/errors.js";
import { assertReadable, canRead } from "./memo-access.js";
import type { MemoAccessInfo } from "./memos.contract.js";
import { readableInSpace } from "./memo-spaces.js";
import type { MemosDeps } from "./memos-deps.js";

/**
 * The memos of `memoIds` that exist and are not deleted (missing ones are left out), with the
 * caller's read right, in one call per request.
 */
export async function memoAccessInfo(deps: MemosDeps, memoIds: readonly string[], caller: Caller | null): Promise<MemoAccessInfo[]> {
	const spaces = await deps.peers.spacesOf(caller);
	if (memoIds.length === 0) return [];
	const docs = await deps.store.memos.find({ _id: { $in: [...new Set(memoIds)] }, deleteTime: null });
	return docs.map(memo => {
		let read: MemoAccessInfo["read"] = "OK";
		try {
			assertReadable(memo, memo._id, caller, spaces);
		} catch (err) {
			if (!(err instanceof ServiceError)) throw err;
			read = err.type as MemoAccessInfo["read"];
		}
		const publicRead = memo.state === "NORMAL" && canRead(memo, null);
		return { id: memo._id, creatorId: memo.creatorId, spaceId: memo.spaceId, read, publicRead, spaceReadable: readableInSpace(memo) };
	});
}
