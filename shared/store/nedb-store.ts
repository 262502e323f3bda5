import { constants } from "node:fs";
import { access, mkdir, readdir, stat } from "node:fs/promises";
import path from "node:path";
import nedb from "@seald-io/nedb";
import type { Collection, Doc, DocumentStore, Filter, FindOptions, IndexSpec, Update, UpdateOptions } from "./document-store.js";
import { DuplicateKeyError } from "./document-store.js";

// The package's types describe an ES `export default`, but the module is CommonJS and an ES
// import receives `module.exports`, which is the class itself.
const Datastore = nedb as unknown as typeof nedb.default;
type Datastore = InstanceType<typeof Datastore>;

type Query = Record<string, unknown>;

const COLLECTION_NAME = /^[A-Za-z0-9_-]{1,64}$/;

// NeDB appends every write to the data file; only a compaction rewrites it to one line per document.
const AUTOCOMPACTION_MS = 60 * 60 * 1000;

/**
 * The embedded adapter: one NeDB datastore per collection, kept in memory and appended to
 * `<dir>/<collection>.db`.
 *
 * NeDB speaks a dialect of the Mongo query language; filters are translated so that the
 * port's (MongoDB's) meaning holds: `$ne`/`$nin` on an array mean "no element", `null`
 * matches a missing field, `$exists` looks at the field as a whole, several conditions on
 * one array field may be met by different elements, `$not` is a field operator and `$nor`
 * exists. Not emulated: ordering between values of different types, sorting on array
 * fields, `null` through a dotted path that crosses an array.
 *
 * Only one store may open a directory at a time: two datastores on one file corrupt it.
 */
export class NedbDocumentStore implements DocumentStore {
	readonly driver = "nedb";
	private readonly dir: string | null;
	private readonly ready: Promise<void>;
	private readonly collections = new Map<string, NedbCollection<Doc>>();
	private closed = false;

	/** `dir` null keeps everything in memory (tests). */
	constructor(options: { dir: string | null }) {
		this.dir = options.dir;
		this.ready = this.dir === null ? Promise.resolve() : mkdir(this.dir, { recursive: true }).then(() => undefined);
		// A failed mkdir surfaces through ping() and every collection; this only stops an unhandled rejection.
		this.ready.catch(() => undefined);
	}

	collection<T extends Doc = Doc>(name: string): Collection<T> {
		if (this.closed) throw new Error("the document store is closed");
		if (!COLLECTION_NAME.test(name)) throw new Error(`invalid collection name: ${JSON.stringify(name)}`);
		let collection = this.collections.get(name);
		if (!collection) {
			collection = new NedbCollection<Doc>(name, this.dir, this.ready);
			this.collections.set(name, collection);
		}
		return collection as unknown as Collection<T>;
	}

	async ping(): Promise<void> {
		if (this.closed) throw new Error("the document store is closed");
		await this.ready;
		if (this.dir !== null) await access(this.dir, constants.W_OK);
	}

	async sizeBytes(): Promise<number> {
		const dir = this.dir;
		if (dir === null) return -1;
		try {
			await this.ready;
			const files = (await readdir(dir)).filter(file => file.endsWith(".db"));
			const sizes = await Promise.all(files.map(async file => (await stat(path.join(dir, file))).size));
			return sizes.reduce((sum, size) => sum + size, 0);
		} catch {
			return -1;
		}
	}

	async close(): Promise<void> {
		if (this.closed) return;
		this.closed = true;
		await Promise.all([...this.collections.values()].map(collection => collection.close()));
	}
}

class NedbCollection<T extends Doc> implements Collection<T> {
	private readonly db: Datastore;
	private readonly loaded: Promise<void>;
	// Upserts take two steps (update, then insert); chaining writes keeps them atomic.
	private writes: Promise<unknown> = Promise.resolve();

	constructor(
		readonly name: string,
		dir: string | null,
		ready: Promise<void>
	) {
		if (dir === null) {
			this.db = new Datastore({ inMemoryOnly: true });
			this.loaded = Promise.resolve();
		} else {
			this.db = new Datastore({ filename: path.join(dir, `${name}.db`) });
			this.loaded = ready.then(() => this.db.loadDatabaseAsync());
			this.db.setAutocompactionInterval(AUTOCOMPACTION_MS);
		}
		this.loaded.catch(() => undefined);
	}

	async ensureIndex(spec: IndexSpec): Promise<void> {
		const fields = Object.keys(spec.fields);
		await this.write(() =>
			this.db.ensureIndexAsync({
				fieldName: fields.length === 1 ? fields[0] : fields,
				unique: spec.unique ?? false,
				sparse: spec.sparse ?? false
			})
		);
	}

	insert(doc: T): Promise<T> {
		return this.write(() => this.db.insertAsync(doc));
	}

	async find(filter: Filter, options: FindOptions = {}): Promise<T[]> {
		await this.loaded;
		const cursor = this.db.findAsync<T>(toNedbQuery(filter));
		if (options.sort) cursor.sort(options.sort);
		if (options.skip) cursor.skip(options.skip);
		if (options.limit) cursor.limit(options.limit);
		if (options.projection) cursor.projection(options.projection);
		return (await cursor) as unknown as T[];
	}

	async findOne(filter: Filter): Promise<T | null> {
		const [doc] = await this.find(filter, { limit: 1 });
		return doc ?? null;
	}

	async count(filter: Filter): Promise<number> {
		await this.loaded;
		return await this.db.countAsync(toNedbQuery(filter));
	}

	async update(filter: Filter, update: Update, options: UpdateOptions = {}): Promise<number> {
		const nedbUpdate = toNedbUpdate(update);
		return await this.write(async () => {
			const { numAffected } = await this.db.updateAsync(toNedbQuery(filter), nedbUpdate, { multi: options.multi ?? false });
			if (numAffected > 0 || !options.upsert) return numAffected;
			await this.upsert(filter, nedbUpdate);
			return 1;
		});
	}

	async findOneAndUpdate(filter: Filter, update: Update, options: { upsert?: boolean } = {}): Promise<T | null> {
		const nedbUpdate = toNedbUpdate(update);
		return await this.write(async () => {
			const { affectedDocuments } = await this.db.updateAsync<T, { multi: false; returnUpdatedDocs: true }>(
				toNedbQuery(filter),
				nedbUpdate,
				{ multi: false, returnUpdatedDocs: true }
			);
			if (affectedDocuments) return affectedDocuments;
			return options.upsert ? await this.upsert(filter, nedbUpdate) : null;
		});
	}

	remove(filter: Filter, options: { multi?: boolean } = {}): Promise<number> {
		return this.write(() => this.db.removeAsync(toNedbQuery(filter), { multi: options.multi ?? false }));
	}

	async close(): Promise<void> {
		this.db.stopAutocompaction();
		await this.writes;
		// Compaction is queued behind every pending write, so it also waits for them to reach the file.
		if (await this.loaded.then(() => true, () => false)) await this.db.compactDatafileAsync();
	}

	/**
	 * Inserts what MongoDB would: the filter's equality fields with the update applied. NeDB
	 * seeds an upsert with its query minus the `$` keys, which for the translated filter would
	 * keep operator objects as empty sub-documents; this query matches nothing and strips to
	 * exactly the equality fields. A clash on `_id` then fails as it does in MongoDB.
	 */
	private async upsert(filter: Filter, update: Query): Promise<T> {
		const query = { ...equalityFields(filter), $where: () => false };
		const { affectedDocuments } = await this.db.updateAsync<T, { upsert: true; returnUpdatedDocs: true }>(query, update, {
			upsert: true,
			returnUpdatedDocs: true
		});
		return affectedDocuments as T;
	}

	private write<R>(operation: () => Promise<R>): Promise<R> {
		const run = this.writes.then(() => this.loaded).then(() => this.guard(operation()));
		this.writes = run.catch(() => undefined);
		return run;
	}

	private async guard<R>(operation: Promise<R>): Promise<R> {
		try {
			return await operation;
		} catch (err) {
			if (isUniqueViolation(err)) throw new DuplicateKeyError(this.name, `duplicate key ${JSON.stringify(err.key)}`);
			throw err;
		}
	}
}

function isUniqueViolation(err: unknown): err is { errorType: "uniqueViolated"; key: unknown } {
	return typeof err === "object" && err !== null && (err as { errorType?: unknown }).errorType === "uniqueViolated";
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof RegExp) && !(value instanceof Date);
}

function isOperatorObject(value: unknown): value is Record<string, unknown> {
	return isPlainObject(value) && Object.keys(value).some(key => key.startsWith("$"));
}

const LOGICAL = new Set(["$and", "$or", "$nor"]);

/** A condition on the element itself (`{ $gte: 5 }`) rather than a query on element sub-documents. */
function isElementCondition(value: unknown): boolean {
	return isOperatorObject(value) && !Object.keys(value).some(key => LOGICAL.has(key));
}

function toNedbQuery(filter: Filter): Query {
	const clauses: Query[] = [];
	for (const [key, value] of Object.entries(filter)) {
		if (key === "$and" || key === "$or") clauses.push({ [key]: subQueries(key, value) });
		else if (key === "$nor") clauses.push({ $not: { $or: subQueries(key, value) } });
		else if (key.startsWith("$")) throw new Error(`unsupported query operator ${key}`);
		else clauses.push(...fieldClauses(key, value));
	}
	return combine(clauses);
}

function subQueries(operator: string, value: unknown): Query[] {
	if (!Array.isArray(value)) throw new Error(`${operator} needs an array of queries`);
	return value.map(query => toNedbQuery(query as Filter));
}

/**
 * Merges one-key clauses into one query, so that NeDB still sees top-level field conditions
 * (it picks candidates from its indexes by them); clashing keys go under `$and`.
 */
function combine(clauses: Query[]): Query {
	const query: Query = {};
	const others: Query[] = [];
	for (const clause of clauses) {
		const [key] = Object.keys(clause);
		if (key === "$and" || Object.hasOwn(query, key)) others.push(clause);
		else Object.assign(query, clause);
	}
	if (others.length > 0) query.$and = others;
	return query;
}

// One clause per operator: on an array field MongoDB lets each operator match a different element.
function fieldClauses(field: string, condition: unknown): Query[] {
	if (!isOperatorObject(condition)) return [equals(field, condition)];
	return Object.entries(condition).map(([operator, operand]) => operatorClause(field, operator, operand));
}

function operatorClause(field: string, operator: string, operand: unknown): Query {
	switch (operator) {
		case "$eq":
			return equals(field, operand);
		case "$ne":
			return { $not: equals(field, operand) };
		case "$in":
			return isIn(field, operand);
		case "$nin":
			return { $not: isIn(field, operand) };
		case "$exists":
			return exists(field, Boolean(operand));
		case "$not":
			if (!(operand instanceof RegExp) && !isOperatorObject(operand)) throw new Error("$not needs an operator object or a RegExp");
			return { $not: combine(fieldClauses(field, operand)) };
		case "$elemMatch":
			return { [field]: { $elemMatch: elementQuery(operand) } };
		case "$gt":
		case "$gte":
		case "$lt":
		case "$lte":
		case "$regex":
		case "$size":
			return { [field]: { [operator]: operand } };
		default:
			throw new Error(`unsupported query operator ${operator}`);
	}
}

function equals(field: string, value: unknown): Query {
	return value === null ? { $or: [{ [field]: null }, exists(field, false)] } : { [field]: value };
}

function isIn(field: string, values: unknown): Query {
	if (!Array.isArray(values)) throw new Error("$in and $nin need an array");
	const clause = { [field]: { $in: values } };
	return values.includes(null) ? { $or: [clause, exists(field, false)] } : clause;
}

// NeDB tests `$exists` on each element of an array, so an empty array would not "exist".
function exists(field: string, wanted: boolean): Query {
	const parts = field.split(".");
	return {
		$where(this: unknown) {
			return hasPath(this, parts) === wanted;
		}
	};
}

function hasPath(value: unknown, parts: readonly string[]): boolean {
	if (parts.length === 0) return true;
	const [head, ...rest] = parts;
	if (Array.isArray(value)) {
		if (/^\d+$/.test(head) && Number(head) < value.length && hasPath(value[Number(head)], rest)) return true;
		return value.some(element => isPlainObject(element) && hasPath(element, parts));
	}
	return isPlainObject(value) && Object.hasOwn(value, head) && hasPath(value[head], rest);
}

function elementQuery(query: unknown): unknown {
	return isPlainObject(query) && !isElementCondition(query) ? toNedbQuery(query) : query;
}

function toNedbUpdate(update: Update): Query {
	// Without operators NeDB would replace the whole document; MongoDB refuses such an update.
	if (Object.keys(update).length === 0) throw new Error("an update needs at least one operator");
	if (!update.$pull) return update;
	const $pull = Object.fromEntries(Object.entries(update.$pull).map(([field, condition]) => [field, elementQuery(condition)]));
	return { ...update, $pull };
}

/** The fields a filter fixes by equality, as MongoDB seeds an upserted document with them. */
function equalityFields(filter: Filter, into: Query = {}): Query {
	for (const [key, value] of Object.entries(filter)) {
		if (key === "$and" && Array.isArray(value)) {
			for (const query of value) equalityFields(query as Filter, into);
		} else if (!key.startsWith("$") && !(value instanceof RegExp)) {
			if (!isOperatorObject(value)) setPath(into, key, value);
			else if ("$eq" in value) setPath(into, key, value.$eq);
		}
	}
	return into;
}

function setPath(target: Query, field: string, value: unknown): void {
	const parts = field.split(".");
	const last = parts.pop() as string;
	let node = target;
	for (const part of parts) {
		if (!isPlainObject(node[part])) node[part] = {};
		node = node[part] as Query;
	}
	node[last] = value;
}
