import fc from "fast-check";
import { afterPosition, positionGuard, positionOf } from "../../shared/paging/keyset.js";
import type { Doc, Sort } from "../../shared/store/document-store.js";
import { SqliteDocumentStore } from "../../shared/store/sqlite-store.js";

const TYPES = { pinned: "boolean", createTime: "number", updateTime: "number", _id: "string", seq: "number" } as const;

interface Row extends Doc {
	pinned: boolean;
	createTime: number;
	_id: string;
	seq: number;
}

function compare(a: Row, b: Row, sort: Sort): number {
	for (const [key, direction] of Object.entries(sort)) {
		const x = a[key] as number | string | boolean;
		const y = b[key] as number | string | boolean;
		if (x < y) return -direction;
		if (x > y) return direction;
	}
	return 0;
}

const direction = fc.constantFrom<1 | -1>(1, -1);

// A sort over a few of the memo keys, always ending in the unique `seq` as ListMemos sorts do.
const sortArb = fc
	.tuple(fc.subarray(["pinned", "createTime", "_id"]), fc.array(direction, { minLength: 4, maxLength: 4 }))
	.map(([keys, dirs]) => {
		const sort: Sort = {};
		keys.forEach((key, i) => (sort[key] = dirs[i]));
		sort.seq = dirs[3];
		return sort;
	});

describe("keyset pagination", () => {
	test("pages walked through the store give exactly the sorted list, in both directions of every key", async () => {
		const store = new SqliteDocumentStore({ dir: null });
		let round = 0;
		await fc.assert(
			fc.asyncProperty(
				fc.array(fc.record({ pinned: fc.boolean(), createTime: fc.integer({ min: 0, max: 4 }), id: fc.constantFrom("a", "b", "C", "d", "e") }), {
					maxLength: 25
				}),
				sortArb,
				fc.integer({ min: 1, max: 7 }),
				async (rows, sort, pageSize) => {
					const collection = store.collection<Row>(`rows${round++}`);
					const docs = rows.map((r, i) => ({ _id: `${r.id}${i}`, pinned: r.pinned, createTime: r.createTime, seq: i + 1 }));
					for (const doc of docs) await collection.insert(doc);
					const expected = [...docs].sort((a, b) => compare(a, b, sort)).map(d => d._id);
					const walked: string[] = [];
					let position: ReturnType<typeof positionOf> | null = null;
					for (;;) {
						const after = position === null ? {} : afterPosition(sort, position);
						if (after === null) break;
						const page = await collection.find(after, { sort, limit: pageSize });
						walked.push(...page.map(d => d._id));
						if (page.length < pageSize) break;
						position = positionOf(page[page.length - 1], sort);
					}
					expect(walked).toEqual(expected);
				}
			),
			{ numRuns: 60 }
		);
		await store.close();
	});

	test("a position must hold exactly the sort keys with their types", () => {
		const guard = positionGuard({ pinned: -1, createTime: -1, seq: -1 }, TYPES);
		expect(guard({ pinned: true, createTime: 5, seq: 9 })).toBe(true);
		expect(guard({ pinned: "true", createTime: 5, seq: 9 })).toBe(false);
		expect(guard({ pinned: true, createTime: 5 })).toBe(false);
		expect(guard({ pinned: true, createTime: 5, seq: 9, extra: 1 })).toBe(false);
		expect(guard({ pinned: true, createTime: null, seq: 9 })).toBe(false);
		expect(guard([true, 5, 9])).toBe(false);
		expect(guard(null)).toBe(false);
		expect(guard("x")).toBe(false);
	});
});
