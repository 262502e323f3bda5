import { randomUUID } from "node:crypto";
import fc from "fast-check";
import type { Collection, DocumentStore } from "../../shared/store/document-store.js";
import { openDocumentStore } from "../../shared/store/open-store.js";
import type { MemoDoc, Visibility } from "../../services/memos/memo-doc.js";
import { compileMemoFilter, parseMemoFilter } from "../../services/memos/filter/memo-filter.js";

/**
 * The compiled query, run by the real SQLite adapter, selects exactly the memos that an
 * evaluation written straight from the contract's semantics (6.1, 6.2, 1.2) selects. Filters
 * are generated from the grammar together with their meaning.
 */

interface Expr<T> {
	text: string;
	holds: (value: T, context: Context) => boolean;
}
interface Context {
	nowSeconds: number;
}

const USER_IDS: Record<string, string> = { alice: "u-alice", bob: "u-bob", carol: "u-carol" };
const USERNAMES = ["alice", "bob", "carol", "ghost"];
const VISIBILITIES: Visibility[] = ["PRIVATE", "PROTECTED", "PUBLIC", "SPACE"];
const PIECES = ["Roadmap", "roadmap", "ÉTÉ", "été", "straße", "STRASSE", "ẞ", "Kelvin", "\u212Aelvin", "σ", "Σ", "ς", "İ", "ı", "i", "I", "a.b", "a*b", "(x)", "[", "^$", "\\", "x", "X", "日本", "😀", " ", "\n", "#tag", "=", ":"];
const TAGS = ["work", "work/q1", "Work", "home", "été", "ÉTÉ", "a", "b", "x.y", "日本", "😀"];
const SECONDS = [999, 1000, 1001, 1002, 4999, 5000];
const FLAGS: Record<string, (doc: MemoDoc) => boolean> = {
	pinned: doc => doc.pinned,
	has_task_list: doc => doc.property.hasTaskList,
	has_link: doc => doc.property.hasLink,
	has_code: doc => doc.property.hasCode,
	has_incomplete_tasks: doc => doc.property.hasIncompleteTasks,
	has_location: doc => doc.location !== null
};
type Op = "==" | "!=" | "<" | "<=" | ">" | ">=";
const OPS: Op[] = ["==", "!=", "<", "<=", ">", ">="];
const MIRROR: Record<Op, Op> = { "==": "==", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<=" };

const quote = (s: string) => JSON.stringify(s);
const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
const seconds = (ms: number) => Math.floor(ms / 1000);

function compare(a: number, op: Op, b: number): boolean {
	switch (op) {
		case "==":
			return a === b;
		case "!=":
			return a !== b;
		case "<":
			return a < b;
		case "<=":
			return a <= b;
		case ">":
			return a > b;
		case ">=":
			return a >= b;
	}
}

/** contains / startsWith / endsWith under Unicode simple case folding: JavaScript's `iu` matching. */
function textTest(fn: string, haystack: string, needle: string): boolean {
	const body = escapeRegExp(needle);
	const pattern = fn === "startsWith" ? `^(?:${body})` : fn === "endsWith" ? `(?:${body})$` : body;
	return new RegExp(pattern, "iu").test(haystack);
}

const text = fc.array(fc.constantFrom(...PIECES), { maxLength: 4 }).map(parts => parts.join(""));
const needle = fc.array(fc.constantFrom(...PIECES), { maxLength: 2 }).map(parts => parts.join(""));

const memoDoc = (id: string) =>
	fc
		.record({
			creatorId: fc.constantFrom(...Object.values(USER_IDS)),
			content: text,
			visibility: fc.constantFrom(...VISIBILITIES),
			pinned: fc.boolean(),
			createSecond: fc.constantFrom(...SECONDS),
			createMs: fc.constantFrom(0, 1, 500, 999),
			updateSecond: fc.constantFrom(...SECONDS),
			tags: fc.uniqueArray(fc.constantFrom(...TAGS), { maxLength: 5 }),
			hasLink: fc.boolean(),
			hasTaskList: fc.boolean(),
			hasCode: fc.boolean(),
			hasIncompleteTasks: fc.boolean(),
			located: fc.boolean(),
			spaceId: fc.constantFrom(null, "s1", "s2")
		})
		.map(
			(r): MemoDoc => ({
				_id: id,
				seq: 0,
				creatorId: r.creatorId,
				content: r.content,
				visibility: r.visibility,
				state: "NORMAL",
				pinned: r.pinned,
				createTime: r.createSecond * 1000 + r.createMs,
				updateTime: r.updateSecond * 1000 + 999,
				tags: r.tags,
				property: { hasLink: r.hasLink, hasTaskList: r.hasTaskList, hasCode: r.hasCode, hasIncompleteTasks: r.hasIncompleteTasks, title: "" },
				snippet: "",
				location: r.located ? { placeholder: "p", latitude: 1, longitude: 2 } : null,
				spaceId: r.spaceId,
				parentId: null,
				deleteTime: null
			})
		);

const memoDocs = fc.integer({ min: 0, max: 14 }).chain(n => fc.tuple(...Array.from({ length: n }, (_, i) => memoDoc(`m${i}`))));

/** A time operand with its value in seconds, given the request's `now` in seconds. */
const timeValue: fc.Arbitrary<{ text: string; value: (context: Context) => number }> = fc.oneof(
	fc.constantFrom(...SECONDS, -1).map(s => ({ text: String(s), value: () => s })),
	fc.tuple(fc.constantFrom("now", "now()"), fc.constantFrom("+", "-"), fc.constantFrom(0, 1, 2, 1000)).map(([now, sign, k]) => ({
		text: `${now} ${sign} ${k}`,
		value: (c: Context) => c.nowSeconds + (sign === "+" ? k : -k)
	})),
	fc.tuple(fc.constantFrom(...SECONDS), fc.constantFrom("", ".500", ".999")).map(([s, fraction]) => ({
		text: `timestamp(${quote(new Date(s * 1000).toISOString().replace(".000Z", `${fraction}Z`))})`,
		value: () => s
	})),
	fc.constantFrom(...SECONDS).map(s => ({ text: `timestamp(${s})`, value: () => s })),
	fc
		.constantFrom(["1s", 1], ["1500ms", 1], ["-90s", -90], ["1m", 60], ["1h", 3600], ["1h0m2s", 3602], ["999ms", 0], ["0", 0])
		.chain(([duration, secs]) =>
			fc.constantFrom("+", "-").map(sign => ({
				text: `now ${sign} duration(${quote(duration as string)})`,
				value: (c: Context) => c.nowSeconds + (sign === "+" ? (secs as number) : -(secs as number))
			}))
		)
);

/** `field OP value` or `value OP' field`, the same comparison written either way round. */
function either(field: string, op: Op, value: string): fc.Arbitrary<string> {
	return fc.boolean().map(swap => (swap ? `${value} ${MIRROR[op]} ${field}` : `${field} ${op} ${value}`));
}

const flagAtom: fc.Arbitrary<Expr<MemoDoc>> = fc.constantFrom(...Object.keys(FLAGS)).chain(field =>
	fc.oneof(
		fc.constant({ text: field, holds: (doc: MemoDoc) => FLAGS[field](doc) }),
		fc.tuple(fc.constantFrom<Op>("==", "!="), fc.boolean()).chain(([op, b]) =>
			either(field, op, String(b)).map(written => ({
				text: written,
				holds: (doc: MemoDoc) => (FLAGS[field](doc) === b) === (op === "==")
			}))
		)
	)
);

const contentAtom: fc.Arbitrary<Expr<MemoDoc>> = fc.oneof(
	fc.tuple(fc.constantFrom<Op>("==", "!="), text).chain(([op, s]) =>
		either("content", op, quote(s)).map(written => ({ text: written, holds: (doc: MemoDoc) => (doc.content === s) === (op === "==") }))
	),
	fc.array(text, { maxLength: 3 }).map(values => ({
		text: `content in [${values.map(quote).join(", ")}]`,
		holds: (doc: MemoDoc) => values.includes(doc.content)
	})),
	fc.tuple(fc.constantFrom("contains", "startsWith", "endsWith"), needle).map(([fn, s]) => ({
		text: `content.${fn}(${quote(s)})`,
		holds: (doc: MemoDoc) => textTest(fn, doc.content, s)
	})),
	needle.map(s => ({ text: `content:${quote(s)}`, holds: (doc: MemoDoc) => textTest("contains", doc.content, s) }))
);

const creatorAtom: fc.Arbitrary<Expr<MemoDoc>> = fc.oneof(
	fc.tuple(fc.constantFrom<Op>("==", "!="), fc.constantFrom(...USERNAMES)).chain(([op, name]) =>
		either("creator", op, quote(`users/${name}`)).map(written => ({
			text: written,
			holds: (doc: MemoDoc) => (USER_IDS[name] === doc.creatorId) === (op === "==")
		}))
	),
	fc.uniqueArray(fc.constantFrom(...USERNAMES), { maxLength: 3 }).map(names => ({
		text: `creator in [${names.map(name => quote(`users/${name}`)).join(", ")}]`,
		holds: (doc: MemoDoc) => names.some(name => USER_IDS[name] === doc.creatorId)
	}))
);

const visibilityAtom: fc.Arbitrary<Expr<MemoDoc>> = fc.oneof(
	fc.tuple(fc.constantFrom<Op>("==", "!=", "=" as Op), fc.constantFrom(...VISIBILITIES)).chain(([op, v]) =>
		either("visibility", op === ("=" as Op) ? "==" : op, quote(v)).map(written => ({
			text: op === ("=" as Op) ? `visibility = ${quote(v)}` : written,
			holds: (doc: MemoDoc) => (doc.visibility === v) === (op !== "!=")
		}))
	),
	fc.uniqueArray(fc.constantFrom(...VISIBILITIES), { maxLength: 3 }).map(values => ({
		text: `visibility in [${values.map(quote).join(", ")}]`,
		holds: (doc: MemoDoc) => values.includes(doc.visibility)
	}))
);

const spaceAtom: fc.Arbitrary<Expr<MemoDoc>> = fc.constantFrom<Expr<MemoDoc>>(
	{ text: "space == null", holds: doc => doc.spaceId === null },
	{ text: "null == space", holds: doc => doc.spaceId === null },
	{ text: "space != null", holds: doc => doc.spaceId !== null },
	{ text: 'space == "spaces/s1"', holds: doc => doc.spaceId === "s1" },
	{ text: '"spaces/s3" == space', holds: () => false }
);

const timeAtom: fc.Arbitrary<Expr<MemoDoc>> = fc
	.tuple(fc.constantFrom("created_ts", "updated_ts"), fc.constantFrom(...OPS), timeValue)
	.chain(([field, op, value]) =>
		either(field, op, value.text).map(written => ({
			text: written,
			holds: (doc: MemoDoc, c: Context) => compare(seconds(field === "created_ts" ? doc.createTime : doc.updateTime), op, value.value(c))
		}))
	);

const tagAtom: fc.Arbitrary<Expr<string>> = fc.oneof(
	fc.tuple(fc.constantFrom<Op>("==", "!="), fc.constantFrom(...TAGS, "nope"), fc.boolean()).map(([op, tag, swap]) => ({
		text: swap ? `${quote(tag)} ${op} t` : `t ${op} ${quote(tag)}`,
		holds: (t: string) => (t === tag) === (op === "==")
	})),
	fc.uniqueArray(fc.constantFrom(...TAGS), { maxLength: 3 }).map(values => ({
		text: `t in [${values.map(quote).join(", ")}]`,
		holds: (t: string) => values.includes(t)
	})),
	fc.tuple(fc.constantFrom("contains", "startsWith", "endsWith"), fc.constantFrom("w", "WORK", "/", "q1", "ét", "ÉT", "Y", ".", "", "日", "😀")).map(
		([fn, s]) => ({ text: `t.${fn}(${quote(s)})`, holds: (t: string) => textTest(fn, t, s) })
	)
);

function combined<T>(atom: fc.Arbitrary<Expr<T>>, depth: number): fc.Arbitrary<Expr<T>> {
	if (depth === 0) return atom;
	const inner = combined(atom, depth - 1);
	return fc.oneof(
		{ arbitrary: atom, weight: 3 },
		inner.map(e => ({ text: `!(${e.text})`, holds: (v: T, c: Context) => !e.holds(v, c) })),
		fc.tuple(inner, inner).map(([a, b]) => ({ text: `(${a.text} && ${b.text})`, holds: (v: T, c: Context) => a.holds(v, c) && b.holds(v, c) })),
		fc.tuple(inner, inner).map(([a, b]) => ({ text: `(${a.text} || ${b.text})`, holds: (v: T, c: Context) => a.holds(v, c) || b.holds(v, c) })),
		fc.constantFrom<Expr<T>>({ text: "true", holds: () => true }, { text: "false", holds: () => false })
	);
}

const tagsAtom: fc.Arbitrary<Expr<MemoDoc>> = fc.oneof(
	fc.constantFrom(...TAGS, "nope").map(tag => ({ text: `${quote(tag)} in tags`, holds: (doc: MemoDoc) => doc.tags.includes(tag) })),
	fc.uniqueArray(fc.constantFrom(...TAGS), { maxLength: 3 }).map(values => ({
		text: `tag in [${values.map(quote).join(", ")}]`,
		holds: (doc: MemoDoc) => doc.tags.some(tag => values.includes(tag))
	})),
	combined(tagAtom, 2).map(element => ({
		text: `tags.exists(t, ${element.text})`,
		holds: (doc: MemoDoc, c: Context) => doc.tags.some(tag => element.holds(tag, c))
	})),
	fc.tuple(fc.constantFrom(...OPS), fc.constantFrom(-1, 0, 1, 2, 3, 5)).chain(([op, n]) =>
		either("size(tags)", op, String(n)).map(written => ({ text: written, holds: (doc: MemoDoc) => compare(doc.tags.length, op, n) }))
	)
);

const memoFilter = combined(fc.oneof(flagAtom, contentAtom, creatorAtom, visibilityAtom, spaceAtom, timeAtom, tagsAtom), 3);

// MongoDB runs the same queries when MONGO_URL is set (as the store contract suite does).
const mongoUrl = process.env.MONGO_URL;
const stores: [string, () => Promise<DocumentStore>][] = [["sqlite", () => openDocumentStore({ dir: null })]];
if (mongoUrl) {
	stores.push([
		"mongodb",
		async () => {
			const { MongoDocumentStore } = await import("../../shared/store/mongo-store.js");
			return await MongoDocumentStore.connect(mongoUrl, { dbName: `memos_filter_${randomUUID().replaceAll("-", "")}` });
		}
	]);
}

describe.each(stores)("on %s", (_driver, open) => {
	let store: DocumentStore;
	let memos: Collection<MemoDoc>;

	beforeAll(async () => {
		store = await open();
		memos = store.collection<MemoDoc>(`memos_${randomUUID().slice(0, 8)}`);
	});

	afterAll(async () => {
		await memos.remove({}, { multi: true });
		await store.close();
	});

	it("the compiled query selects exactly the memos the filter's meaning selects", async () => {
		await fc.assert(
			fc.asyncProperty(memoDocs, memoFilter, fc.constantFrom(1_001_500, 1_002_000, 4_999_999), async (docs, filter, now) => {
				await memos.remove({}, { multi: true });
				for (const doc of docs) await memos.insert(doc);
				const checked = parseMemoFilter(filter.text);
				const creatorIds = new Map(checked.usernames.filter(name => name in USER_IDS).map(name => [name, USER_IDS[name]] as const));
				const tags = [...new Set(docs.flatMap(doc => doc.tags))];
				const found = await memos.find(compileMemoFilter(checked, { now, creatorIds, tags }));
				const context = { nowSeconds: seconds(now) };
				const expected = docs.filter(doc => filter.holds(doc, context)).map(doc => doc._id);
				expect(found.map(doc => doc._id).sort()).toEqual(expected.sort());
			}),
			{ numRuns: 400 }
		);
	});
});
