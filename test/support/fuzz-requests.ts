import { brotliCompressSync, constants as zlibConstants, deflateSync, gzipSync } from "node:zlib";
import fc from "fast-check";
import { buildOpenApi } from "../../services/gateway/openapi.js";
import { SCHEMAS, type Schema } from "../../services/gateway/openapi-schemas.js";
import { ROUTE_TABLE } from "../../services/gateway/route-table.js";

/**
 * Requests for the fuzz suite (issue 12 item 9), generated from the route table through the
 * OpenAPI document made of it: every operation with its path parameters, query parameters and
 * body schema, filled with values that are sometimes right, often wrong and sometimes hostile
 * (malformed JSON, undecodable percent-encoding, broken or unknown Content-Encoding, lone
 * surrogates, `$` and `.` keys, deep nesting, oversized values, refresh cookies).
 */

export interface FuzzOperation {
	operationId: string;
	method: string;
	/** The path template, e.g. `/api/v1/memos/{memo}`. */
	path: string;
	query: { name: string; schema: Schema }[];
	/** The JSON body's schema; `raw` for a streamed body (tus), undefined for none. */
	body?: Schema | "raw";
}

export interface FuzzRequest {
	method: string;
	/** Path and query as sent, percent-encoding included (possibly malformed). */
	target: string;
	signedIn: boolean;
	headers: Record<string, string>;
	body?: Buffer;
}

type Json = Record<string, unknown>;

const SCHEMA_REF = "#/components/schemas/";
const PARAMETER_REF = "#/components/parameters/";

/** Every operation of the route table, plus the file and avatar routes the OpenAPI document describes. */
export function fuzzOperations(): FuzzOperation[] {
	const document = buildOpenApi(ROUTE_TABLE);
	const parameters = document.components.parameters as Record<string, { name: string; in: string; schema: Schema }>;
	const operations: FuzzOperation[] = [];
	for (const [path, methods] of Object.entries(document.paths)) {
		for (const [method, op] of Object.entries(methods)) {
			const query: { name: string; schema: Schema }[] = [];
			for (const param of (op.parameters ?? []) as Json[]) {
				const resolved = typeof param.$ref === "string" ? parameters[param.$ref.slice(PARAMETER_REF.length)] : (param as { name: string; in: string; schema: Schema });
				if (resolved && resolved.in === "query") query.push({ name: resolved.name, schema: resolved.schema });
			}
			const content = (op.requestBody as { content?: Record<string, { schema: Schema }> } | undefined)?.content;
			const body = content === undefined ? undefined : content["application/json"] ? content["application/json"].schema : "raw";
			operations.push({ operationId: String(op.operationId), method: method.toUpperCase(), path, query, ...(body === undefined ? {} : { body }) });
		}
	}
	return operations;
}

/** Values known to the server, so that requests get past "not found" into the rules. */
export interface FuzzPools {
	/** Last segments of existing resource names (memo, attachment, user, space ids, share tokens…). */
	ids: string[];
	/** Full resource names (`memos/…`, `users/…`). */
	names: string[];
	/** Existing values by path parameter name (`memo`, `user`, `shareToken`…), so that paths of several parameters can name real things. */
	byParam: Record<string, string[]>;
}

const HOSTILE_STRINGS = [
	"",
	" ",
	"\ud800",
	"a\udfffb",
	"\u0000",
	"$where",
	"a.b",
	"../../etc/passwd",
	"memos/",
	"memos/../users/1",
	"users/-",
	"-",
	"*",
	"%",
	"%ZZ",
	"\u202e\u0627",
	"😀".repeat(40),
	"x".repeat(5000),
	"null",
	"1e309",
	"-1",
	"9223372036854775808",
	"0x10",
	"2025-02-30T00:00:00Z",
	"true",
	'"quoted"',
	"<script>alert(1)</script>",
	"a\r\nSet-Cookie: x=1"
];

/** Path segments as sent on the wire: encoded values, and percent-encodings that do not decode. */
const HOSTILE_SEGMENTS = ["%ZZ", "%", "%E0%A4%A", "%ED%A0%80", "%C0%AF", "%FF%FE", "%00", "%2F", "a%2F..%2Fb", "-", "%uD800", "%25", "a".repeat(600), "%F0%9F%98%80", "%20"];

/** UTF-8 bytes of `text`, every one percent-encoded (lone surrogates become U+FFFD). */
const percentEncode = (text: string) => [...Buffer.from(text, "utf8")].map(byte => `%${byte.toString(16).toUpperCase().padStart(2, "0")}`).join("");

const anyString = fc.oneof(fc.string({ maxLength: 40 }), fc.string({ unit: "binary", maxLength: 20 }), fc.constantFrom(...HOSTILE_STRINGS));

function hostileValue(): fc.Arbitrary<unknown> {
	return fc.oneof(
		fc.constant(null),
		anyString,
		fc.integer(),
		fc.double(),
		fc.boolean(),
		fc.constant({}),
		fc.constant([]),
		fc.dictionary(fc.constantFrom("$gt", "$where", "a.b", ".", "__proto__", "constructor", "\ud800", ""), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
		fc.integer({ min: 60, max: 200 }).map(depth => JSON.parse(`${"[".repeat(depth)}${"]".repeat(depth)}`) as unknown),
		fc.integer({ min: 9, max: 70 }).map(depth => JSON.parse(`${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`) as unknown)
	);
}

function stringFor(schema: Schema, pools: FuzzPools): fc.Arbitrary<unknown> {
	if (schema.enum) return fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...schema.enum) }, { weight: 1, arbitrary: anyString });
	switch (schema.format) {
		case "int64":
			return fc.oneof(fc.bigInt({ min: -(2n ** 64n), max: 2n ** 64n }).map(String), fc.integer({ min: 0, max: 100 }).map(String), anyString);
		case "date-time":
			return fc.oneof(fc.date({ noInvalidDate: true }).map(date => date.toISOString()), anyString);
		case "byte":
			return fc.oneof(fc.uint8Array({ maxLength: 64 }).map(bytes => Buffer.from(bytes).toString("base64")), anyString);
		default:
			return fc.oneof(fc.constantFrom(...pools.names), fc.constantFrom(...pools.ids), anyString);
	}
}

/** A JSON value for `schema`: mostly of its shape, with wrong types and hostile values mixed in. */
export function valueFor(schema: Schema, pools: FuzzPools, depth = 0): fc.Arbitrary<unknown> {
	const resolved = schema.$ref ? (SCHEMAS as Record<string, Schema>)[schema.$ref.slice(SCHEMA_REF.length)] ?? {} : schema;
	if (depth > 4) return hostileValue();
	let shaped: fc.Arbitrary<unknown>;
	switch (resolved.type) {
		case "string":
			shaped = stringFor(resolved, pools);
			break;
		case "integer":
		case "number":
			shaped = fc.oneof(fc.integer({ min: -5, max: 2000 }), fc.integer(), fc.double(), fc.integer().map(String));
			break;
		case "boolean":
			shaped = fc.oneof(fc.boolean(), fc.constantFrom("true", "1", 0));
			break;
		case "array":
			shaped = fc.array(valueFor(resolved.items ?? {}, pools, depth + 1), { maxLength: 4 });
			break;
		default: {
			const properties = Object.entries(resolved.properties ?? {}).filter(([, property]) => property.readOnly !== true);
			if (properties.length === 0) shaped = fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.dictionary(anyString, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }));
			else shaped = fc.record(Object.fromEntries(properties.map(([name, property]) => [name, valueFor(property, pools, depth + 1)])), { requiredKeys: [] });
		}
	}
	return fc.oneof({ weight: 4, arbitrary: shaped }, { weight: 1, arbitrary: hostileValue() });
}

/** JSON text that is not a JSON value, or is one of a kind no operation takes. */
const MALFORMED_BODIES = ["{", "}", "[", '{"a":}', '{"a" 1}', "{'a':1}", "nul", "NaN", "1", "[]", "null", '"x"', '{"a":"\\ud800"}', '{"a":"\\u12"}', '{"a":1,}', "\u0000", "\ufeff{}", '{"__proto__":{"x":1}}', "{".repeat(3000)];

function jsonBody(op: FuzzOperation, pools: FuzzPools): fc.Arbitrary<Buffer> {
	const text = fc.oneof(
		{ weight: 6, arbitrary: valueFor(op.body as Schema, pools).map(value => JSON.stringify(value) ?? "null") },
		{ weight: 2, arbitrary: fc.jsonValue({ maxDepth: 4 }).map(value => JSON.stringify(value)) },
		{ weight: 2, arbitrary: fc.constantFrom(...MALFORMED_BODIES) },
		{ weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 200 }) },
		{ weight: 1, arbitrary: fc.constant(JSON.stringify({ content: "x".repeat(300 * 1024) })) }
	);
	return text.map(value => Buffer.from(value, "utf8"));
}

const rawBody = fc.oneof(
	fc.uint8Array({ maxLength: 512 }).map(bytes => Buffer.from(bytes)),
	fc.constant(Buffer.alloc(0))
);

/** The ways a body is sent: Content-Encoding right, wrong or unknown (compressed only when chosen). */
const ENCODINGS: Record<string, (body: Buffer) => { body: Buffer; headers: Record<string, string> }> = {
	none: body => ({ body, headers: {} }),
	identity: body => ({ body, headers: { "Content-Encoding": "identity" } }),
	gzip: body => ({ body: gzipSync(body), headers: { "Content-Encoding": "gzip" } }),
	deflate: body => ({ body: deflateSync(body), headers: { "Content-Encoding": "deflate" } }),
	br: body => ({ body: brotliCompressSync(body, { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 4 } }), headers: { "Content-Encoding": "br" } }),
	"plain as gzip": body => ({ body, headers: { "Content-Encoding": "gzip" } }),
	"plain as br": body => ({ body, headers: { "Content-Encoding": "br" } }),
	"truncated gzip": body => {
		const gzip = gzipSync(body);
		return { body: gzip.subarray(0, Math.max(1, gzip.length - 6)), headers: { "Content-Encoding": "gzip" } };
	},
	"gzip twice": body => ({ body: gzipSync(gzipSync(body)), headers: { "Content-Encoding": "gzip, gzip" } }),
	compress: body => ({ body, headers: { "Content-Encoding": "compress" } }),
	unknown: body => ({ body, headers: { "Content-Encoding": "x-fuzz" } }),
	empty: body => ({ body, headers: { "Content-Encoding": "" } })
};

function encoded(body: Buffer): fc.Arbitrary<{ body: Buffer; headers: Record<string, string> }> {
	return fc.oneof({ weight: 3, arbitrary: fc.constant("none") }, { weight: 4, arbitrary: fc.constantFrom(...Object.keys(ENCODINGS)) }).map(kind => (ENCODINGS[kind] as (body: Buffer) => { body: Buffer; headers: Record<string, string> })(body));
}

const CONTENT_TYPES = ["application/json", "application/json", "application/json; charset=utf-8", "text/plain", "application/offset+octet-stream", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"];

function querySegment(op: FuzzOperation, pools: FuzzPools): fc.Arbitrary<string> {
	const known = op.query.map(({ name, schema }) =>
		fc.tuple(fc.constant(name), fc.oneof(valueFor(schema, pools).map(value => (typeof value === "string" ? value : JSON.stringify(value) ?? "")), anyString))
	);
	const pair = fc.oneof(
		{ weight: 4, arbitrary: known.length > 0 ? fc.oneof(...known) : fc.tuple(anyString, anyString) },
		{ weight: 1, arbitrary: fc.tuple(anyString, anyString) }
	);
	const encodedPair = fc.tuple(pair, fc.boolean()).map(([[name, value], plain]) => `${plain ? encodeURIComponentSafe(name) : percentEncode(name)}=${plain ? encodeURIComponentSafe(value) : percentEncode(value)}`);
	const broken = fc.constantFrom("%", "%ZZ=1", "pageSize=%ED%A0%80", "filter=%C0%AF", "a=%", "&&", "=", "updateMask=content&updateMask=pinned", "pageSize=1&pageSize=2", "filter=" + "(".repeat(200));
	return fc.array(fc.oneof({ weight: 5, arbitrary: encodedPair }, { weight: 1, arbitrary: broken }), { maxLength: 4 }).map(parts => (parts.length === 0 ? "" : `?${parts.join("&")}`));
}

/** `text` with each lone surrogate replaced by U+FFFD, as UTF-8 encoding does. */
const wellFormed = (text: string) => text.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, "\ufffd");

/** encodeURIComponent, which throws on lone surrogates; those go as their UTF-8 replacement. */
function encodeURIComponentSafe(text: string): string {
	return encodeURIComponent(wellFormed(text));
}

/**
 * A segment that stays one path segment: URL parsing drops `.` and `..` (also percent-encoded)
 * and an empty one changes the route, which tests the route table rather than the parameter.
 */
const oneSegment = (segment: string) => (segment === "" || /^(\.|%2e){1,2}$/i.test(segment) ? `${segment}x` : segment);

function pathOf(op: FuzzOperation, pools: FuzzPools): fc.Arbitrary<string> {
	const params = [...op.path.matchAll(/\{([A-Za-z][A-Za-z0-9_-]*)\}/g)].map(match => match[1] as string);
	const segment = (param: string) =>
		fc.oneof(
			{ weight: 6, arbitrary: fc.constantFrom(...(pools.byParam[param] ?? pools.ids)).map(encodeURIComponentSafe) },
			{ weight: 1, arbitrary: fc.constantFrom(...pools.ids).map(encodeURIComponentSafe) },
			{ weight: 2, arbitrary: anyString.map(encodeURIComponentSafe) },
			{ weight: 1, arbitrary: anyString.map(percentEncode) },
			{ weight: 2, arbitrary: fc.constantFrom(...HOSTILE_SEGMENTS) }
		);
	return fc.tuple(...params.map(segment)).map(values => params.reduce((path, name, i) => path.replace(`{${name}}`, oneSegment(values[i] as string)), op.path));
}

/** One request for `op`, signed in or anonymous, with a path, a query, headers and (maybe) a body. */
export function requestFor(op: FuzzOperation, pools: FuzzPools): fc.Arbitrary<FuzzRequest> {
	const body: fc.Arbitrary<Buffer | undefined> =
		op.body === undefined ? fc.option(jsonBody({ ...op, body: {} }, pools), { freq: 4, nil: undefined }) : op.body === "raw" ? rawBody : jsonBody(op, pools);
	return fc
		.record({
			path: pathOf(op, pools),
			query: querySegment(op, pools),
			// Anonymous requests mostly stop at authentication: a quarter of them is enough.
			signedIn: fc.oneof({ weight: 3, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
			body,
			contentType: fc.option(fc.constantFrom(...CONTENT_TYPES), { freq: 6, nil: undefined }),
			cookie: fc.option(fc.oneof(fc.constantFrom("memos_refresh=", "memos_refresh=a.b.c", "memos_refresh=%ZZ; memos_refresh=x"), anyString.map(s => `memos_refresh=${s.replace(/[^\x21-\x7e]/g, "")}`)), { freq: 3, nil: undefined }),
			tus: fc.option(fc.record({ "Tus-Resumable": fc.constantFrom("1.0.0", "0.2", ""), "Upload-Length": fc.oneof(fc.nat().map(String), anyString.map(s => s.replace(/[^\x20-\x7e]/g, ""))), "Upload-Offset": fc.nat().map(String) }), { freq: 2, nil: undefined })
		})
		.chain(parts =>
			(parts.body === undefined ? fc.constant(undefined) : encoded(parts.body)).map(sent => ({
				method: op.method,
				target: `${parts.path}${parts.query}`,
				signedIn: parts.signedIn,
				headers: {
					...(parts.contentType === undefined ? {} : { "Content-Type": parts.contentType }),
					...(parts.cookie === undefined ? {} : { Cookie: parts.cookie }),
					...(parts.tus ?? {}),
					...(sent?.headers ?? {})
				},
				...(sent === undefined || op.method === "GET" || op.method === "HEAD" ? {} : { body: sent.body })
			}))
		);
}
