import type { MemoDoc, MemoProperty } from "../../services/memos/memo-doc.js";

/** Derived flags of content with nothing in it. */
export const PLAIN_PROPERTY: MemoProperty = { hasLink: false, hasTaskList: false, hasCode: false, hasIncompleteTasks: false, title: "" };

/** A stored memo for tests that write or evaluate documents directly: an empty private memo unless overridden. */
export function memoDoc(overrides: Partial<MemoDoc> = {}): MemoDoc {
	return {
		_id: "m1",
		seq: 1,
		creatorId: "u1",
		content: "",
		visibility: "PRIVATE",
		state: "NORMAL",
		pinned: false,
		createTime: 0,
		updateTime: 0,
		tags: [],
		property: PLAIN_PROPERTY,
		snippet: "",
		location: null,
		spaceId: null,
		parentId: null,
		deleteTime: null,
		...overrides
	};
}
