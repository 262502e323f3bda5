import { parseOrderBy, type OrderField } from "../../../shared/cel/order-by.js";
import type { Sort } from "../../../shared/store/document-store.js";

const MEMO_FIELDS: Record<string, OrderField> = {
	pinned: { key: "pinned", isTime: false },
	create_time: { key: "createTime", isTime: true },
	update_time: { key: "updateTime", isTime: true },
	name: { key: "_id", isTime: false }
};
const COMMENT_FIELDS: Record<string, OrderField> = {
	create_time: MEMO_FIELDS.create_time,
	update_time: MEMO_FIELDS.update_time,
	name: MEMO_FIELDS.name
};

/** ListMemos: `pinned`, `create_time`, `update_time`, `name`; default `create_time desc`. */
export function parseMemoOrderBy(raw: string | undefined): Sort {
	return parseOrderBy(raw, MEMO_FIELDS, "create_time desc");
}

/** ListMemoComments: `create_time`, `update_time`, `name`; default `create_time asc`. */
export function parseCommentOrderBy(raw: string | undefined): Sort {
	return parseOrderBy(raw, COMMENT_FIELDS, "create_time asc");
}
