/**
 * Regular expressions for the text tests of the filter language (contract 6.1): `contains`,
 * `startsWith`, `endsWith` and `:` are case-insensitive under Unicode simple case folding.
 *
 * Case-insensitivity is spelled out as character classes (`[kKK]`) instead of the `i` flag,
 * because JavaScript (NeDB) and PCRE (MongoDB) fold differently under `i`; explicit classes
 * and the constructs used here (`^`, lookarounds, `[\s\S]`) mean the same in both. `$` is
 * avoided: PCRE lets it match before a final newline.
 */

export type TextFunction = "contains" | "startsWith" | "endsWith";

/** Matches only at the very end of the string, in both engines. */
export const END = "(?![\\s\\S])";

const SYNTAX = new Set([..."^$\\.*+?()[]{}|/"]);
const CLASS_SYNTAX = new Set([..."\\]^-["]);

let foldClasses: Map<string, string[]> | null = null;

/**
 * Each cased character with every character equal to it under simple case folding. JavaScript's
 * `u`-flag `i` matching is that folding (ECMAScript's Canonicalize), so it decides membership;
 * candidates come from upper- and lower-casing.
 */
function classesByCharacter(): Map<string, string[]> {
	if (foldClasses !== null) return foldClasses;
	const parent = new Map<string, string>();
	const find = (c: string): string => {
		let root = c;
		while (parent.has(root) && parent.get(root) !== root) root = parent.get(root) as string;
		return root;
	};
	const union = (a: string, b: string) => {
		const [ra, rb] = [find(a), find(b)];
		if (!parent.has(ra)) parent.set(ra, ra);
		if (!parent.has(rb)) parent.set(rb, rb);
		if (ra !== rb) parent.set(rb, ra);
	};
	for (let cp = 0; cp <= 0x1ffff; cp++) {
		if (cp >= 0xd800 && cp <= 0xdfff) continue;
		const char = String.fromCodePoint(cp);
		const lower = char.toLowerCase();
		const upper = char.toUpperCase();
		if (lower === char && upper === char) continue;
		const same = new RegExp(`^${escapeLiteral(char)}$`, "iu");
		for (const candidate of [lower, upper, upper.toLowerCase(), lower.toUpperCase()]) {
			if (candidate !== char && [...candidate].length === 1 && same.test(candidate)) union(char, candidate);
		}
	}
	const members = new Map<string, string[]>();
	for (const char of parent.keys()) {
		const root = find(char);
		const group = members.get(root) ?? [];
		group.push(char);
		members.set(root, group);
	}
	foldClasses = new Map();
	for (const group of members.values()) if (group.length > 1) for (const char of group) foldClasses.set(char, group);
	return foldClasses;
}

function escapeLiteral(char: string): string {
	if (char === "\0") return "\\x00";
	return SYNTAX.has(char) ? `\\${char}` : char;
}

function escapeInClass(char: string): string {
	if (char === "\0") return "\\x00";
	return CLASS_SYNTAX.has(char) ? `\\${char}` : char;
}

/** A pattern matching exactly `literal`. */
export function exactPattern(literal: string): string {
	return [...literal].map(escapeLiteral).join("");
}

/** A pattern matching `literal` under simple case folding. */
export function foldedPattern(literal: string): string {
	const classes = classesByCharacter();
	return [...literal]
		.map(char => {
			const group = classes.get(char);
			return group ? `[${group.map(escapeInClass).join("")}]` : escapeLiteral(char);
		})
		.join("");
}

/** A pattern for `fn(literal)` on a whole string, unanchored at the start for `contains` and `endsWith`. */
export function textFunctionPattern(fn: TextFunction, literal: string): string {
	const folded = foldedPattern(literal);
	if (fn === "startsWith") return `^${folded}`;
	if (fn === "endsWith") return `${folded}${END}`;
	return folded;
}

/** A regular expression both stores run the same way (see above): the `u` flag only, which the MongoDB driver drops harmlessly. */
export function storeRegex(pattern: string): RegExp {
	return new RegExp(pattern, "u");
}
