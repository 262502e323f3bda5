import type { Filter, Update } from "../document-store.js";
import { encodeJson, isPlainObject } from "./json-value.js";

/**
 * The port's update operators applied to a document in memory, with MongoDB's meaning; the
 * collection writes the result back in the same transaction.
 */

type Node = Record<string, unknown> | unknown[];

/** Which of `elements` a `$pull` condition selects (the store answers it with its own query translation). */
export type ElementMatcher = (elements: unknown[], condition: unknown) => boolean[];

const OPERATORS = new Set(["$set", "$unset", "$inc", "$push", "$pull", "$addToSet"]);

export function checkUpdate(update: Update): void {
	const operators = Object.keys(update);
	if (operators.length === 0) throw new Error("an update needs at least one operator");
	for (const operator of operators) {
		if (!OPERATORS.has(operator)) throw new Error(`unsupported update operator ${operator}`);
		if (!isPlainObject(update[operator as keyof Update])) throw new Error(`${operator} needs an object of fields`);
	}
}

/** Applies `update` to `doc` in place; `_id` cannot change. */
export function applyUpdate(doc: Record<string, unknown>, update: Update, matchElements: ElementMatcher): void {
	const id = doc._id;
	for (const [field, value] of Object.entries(update.$set ?? {})) assign(doc, field, structuredClone(value));
	for (const field of Object.keys(update.$unset ?? {})) unset(doc, field);
	for (const [field, amount] of Object.entries(update.$inc ?? {})) {
		if (typeof amount !== "number") throw new Error(`$inc needs a number for ${field}`);
		const current = read(doc, field);
		if (current !== undefined && typeof current !== "number") throw new Error(`cannot apply $inc to the non-numeric field ${field}`);
		assign(doc, field, (current ?? 0) + amount);
	}
	for (const [field, value] of Object.entries(update.$push ?? {})) assign(doc, field, [...arrayAt(doc, field, "$push"), ...each(value)]);
	for (const [field, value] of Object.entries(update.$addToSet ?? {})) {
		const array = arrayAt(doc, field, "$addToSet");
		const present = new Set(array.map(element => encodeJson(element)));
		for (const element of each(value)) {
			const key = encodeJson(element);
			if (!present.has(key)) {
				present.add(key);
				array.push(element);
			}
		}
		assign(doc, field, array);
	}
	for (const [field, condition] of Object.entries(update.$pull ?? {})) {
		if (read(doc, field) === undefined) continue;
		const array = arrayAt(doc, field, "$pull");
		const matches = matchElements(array, condition);
		assign(
			doc,
			field,
			array.filter((_element, i) => !matches[i])
		);
	}
	if (doc._id !== id) throw new Error("an update cannot change _id");
}

function each(value: unknown): unknown[] {
	if (isPlainObject(value) && "$each" in value) {
		if (!Array.isArray(value.$each)) throw new Error("$each needs an array");
		return structuredClone(value.$each);
	}
	return [structuredClone(value)];
}

function arrayAt(doc: Record<string, unknown>, field: string, operator: string): unknown[] {
	const current = read(doc, field);
	if (current === undefined) return [];
	if (!Array.isArray(current)) throw new Error(`cannot apply ${operator} to the non-array field ${field}`);
	return [...current];
}

function child(node: Node, key: string): unknown {
	if (Array.isArray(node)) return /^\d+$/.test(key) ? node[Number(key)] : undefined;
	return Object.hasOwn(node, key) ? node[key] : undefined;
}

function isNode(value: unknown): value is Node {
	return Array.isArray(value) || isPlainObject(value);
}

function read(doc: Record<string, unknown>, field: string): unknown {
	let node: unknown = doc;
	for (const key of field.split(".")) {
		if (!isNode(node)) return undefined;
		node = child(node, key);
	}
	return node;
}

/** The container of the last part of `field`, creating missing sub-documents on the way. */
function containerOf(doc: Record<string, unknown>, field: string): { node: Node; key: string } {
	const keys = field.split(".");
	const last = keys.pop() as string;
	let node: Node = doc;
	for (const key of keys) {
		let next = child(node, key);
		if (next === undefined || next === null) {
			next = {};
			put(node, key, next, field);
		}
		if (!isNode(next)) throw new Error(`cannot create the field ${field}: ${key} is not a document`);
		node = next;
	}
	return { node, key: last };
}

function put(node: Node, key: string, value: unknown, field: string): void {
	if (!Array.isArray(node)) {
		node[key] = value;
		return;
	}
	if (!/^\d+$/.test(key)) throw new Error(`cannot create the field ${field} in an array`);
	const index = Number(key);
	while (node.length < index) node.push(null);
	node[index] = value;
}

function assign(doc: Record<string, unknown>, field: string, value: unknown): void {
	const { node, key } = containerOf(doc, field);
	put(node, key, value, field);
}

function unset(doc: Record<string, unknown>, field: string): void {
	const keys = field.split(".");
	const last = keys.pop() as string;
	let node: unknown = doc;
	for (const key of keys) {
		if (!isNode(node)) return;
		node = child(node, key);
	}
	if (Array.isArray(node)) {
		if (/^\d+$/.test(last) && Number(last) < node.length) node[Number(last)] = null;
	} else if (isPlainObject(node)) {
		delete node[last];
	}
}

/** The fields a filter fixes by equality, as MongoDB seeds an upserted document with them. */
export function equalityFields(filter: Filter, into: Record<string, unknown> = {}): Record<string, unknown> {
	for (const [key, value] of Object.entries(filter)) {
		if (key === "$and" && Array.isArray(value)) {
			for (const query of value) equalityFields(query as Filter, into);
		} else if (!key.startsWith("$") && !(value instanceof RegExp)) {
			const isOperator = isPlainObject(value) && Object.keys(value).some(k => k.startsWith("$"));
			if (!isOperator) assign(into, key, structuredClone(value));
			else if ("$eq" in value) assign(into, key, structuredClone(value.$eq));
		}
	}
	return into;
}
