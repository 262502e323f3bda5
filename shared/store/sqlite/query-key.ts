/**
 * A text that names a query (its filter and options) exactly, or undefined when the query holds
 * a value JSON text would not tell apart from another (a Date and its ISO string, a RegExp, an
 * undefined field, NaN, -0, a BigInt, a class instance): equal texts, the same SQL and parameters. Queries with
 * such values are translated every time.
 */
export function queryKey(query: unknown): string | undefined {
	let exact = true;
	const text = JSON.stringify(query, function (this: Record<string, unknown>, key: string, value: unknown) {
		const original = this[key];
		const json = typeof original === "number" ? Number.isFinite(original) && !Object.is(original, -0) : isJsonValue(original);
		if (!json) exact = false;
		return json ? value : null;
	});
	return exact ? text : undefined;
}

function isJsonValue(value: unknown): boolean {
	if (value === null || typeof value === "string" || typeof value === "boolean" || Array.isArray(value)) return true;
	if (typeof value !== "object") return false;
	const prototype: unknown = Object.getPrototypeOf(value);
	return prototype === Object.prototype || prototype === null;
}
