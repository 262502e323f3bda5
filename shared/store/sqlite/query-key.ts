/**
 * A text that names a query (its filter and options) exactly, or undefined when the query holds
 * a value JSON text would not tell apart from another (a Date and its ISO string, a RegExp, an
 * undefined field, NaN, -0, a BigInt, a class instance): equal texts, the same SQL and parameters. Queries with
 * such values are translated every time. The check is a walk of its own, so that the text is
 * JSON.stringify's fast path (a replacer function made the key cost about twice as much).
 */
export function queryKey(query: unknown): string | undefined {
	return isExactJson(query) ? JSON.stringify(query) : undefined;
}

function isExactJson(value: unknown): boolean {
	if (value === null || typeof value === "string" || typeof value === "boolean") return true;
	if (typeof value === "number") return Number.isFinite(value) && !Object.is(value, -0);
	if (typeof value !== "object") return false;
	if (Array.isArray(value)) {
		// Indexes, not for…of: a hole must count as the undefined it reads as.
		for (let i = 0; i < value.length; i++) if (!isExactJson(value[i])) return false;
		return true;
	}
	const prototype: unknown = Object.getPrototypeOf(value);
	if (prototype !== Object.prototype && prototype !== null) return false;
	return Object.values(value).every(isExactJson);
}
