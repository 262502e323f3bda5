import type { Context } from "moleculer";
import type { RequestMeta } from "../../shared/caller.js";
import { ServiceError } from "../../shared/errors.js";
import type { Collection } from "../../shared/store/document-store.js";
import { assertReadable, canRead } from "./memo-access.js";
import type { MemoAccessInfo } from "./memos.contract.js";
import type { MemoDoc } from "./memo-doc.js";
import { NO_SPACES, readableInSpace, type SpaceRoles } from "./memo-spaces.js";

/**
 * The memos of `memoIds` that exist and are not deleted (missing ones are left out), with the
 * caller's read right, in one call per request.
 */
export async function memoAccessInfo(
	memos: Collection<MemoDoc>,
	memoIds: readonly string[],
	ctx: Context<unknown, RequestMeta>,
	spaces: SpaceRoles = NO_SPACES
): Promise<MemoAccessInfo[]> {
	if (memoIds.length === 0) return [];
	const caller = ctx.meta.user ?? null;
	const docs = await memos.find({ _id: { $in: [...new Set(memoIds)] }, deleteTime: null });
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
